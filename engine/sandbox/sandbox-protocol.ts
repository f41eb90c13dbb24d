/**
 * The messages between the sandbox pool (main thread) and its worker threads. Only data crosses: the
 * template's text, its context as JSON text, options and limits; the answer is text.
 */

/** The Jinja2 environment parameters Patchbay honours (a config template's environment_params). */
export interface TemplateOptions {
  autoescape?: boolean;
  trim_blocks?: boolean;
  lstrip_blocks?: boolean;
  keep_trailing_newline?: boolean;
}

export interface RenderLimits {
  /** Milliseconds before the rendering is stopped; 0: no limit. */
  timeoutMs: number;
  /** Bytes the output may take. */
  maxOutput: number;
  /** Bytes of heap the rendering's machine may use (its context data included). */
  maxMemory: number;
}

export interface RenderTask {
  kind: 'render';
  code: string;
  contextJson: string;
  options: TemplateOptions;
  limits: RenderLimits;
}

/** A condition set judged on an event's data; `ruleKey` names the rule's version, so a set is compiled once. */
export interface ConditionsTask {
  kind: 'conditions';
  ruleKey: string;
  conditions: unknown;
  dataJson: string;
}

export type SandboxTask = RenderTask | ConditionsTask;

/** `busy`: refused without being tried, because the pool's queue was full. */
export type Rendered = { ok: true; text: string } | { ok: false; message: string; busy?: boolean };

/** `busy`: refused without being tried (the pool's queue was full); judged again later. */
export type Judged = { holds: boolean } | { invalid: string } | { busy: true };

export type TaskResult = Rendered | Judged;

/** Worker to pool: the answer to the task it was given, and whether it should be replaced (its heap grew large). */
export interface WorkerReply {
  result: TaskResult;
  retire: boolean;
}

import type { Config } from '../config';
import { sharedSandbox } from './shared-sandbox';
import { failure } from './template-vm';
import type { RenderLimits, Rendered, TemplateOptions } from './sandbox-protocol';

export type { Rendered, TemplateOptions } from './sandbox-protocol';
export type TemplateLimits = RenderLimits;

/** A template's context already serialised (an export's objects come from the database as JSON text). */
export class ContextJson {
  constructor(readonly text: string) {}
}

/** The limits of one rendering, from the configuration. */
export function templateLimits(config: Pick<Config, 'templateTimeoutMs' | 'templateMaxOutput' | 'templateMaxMemory'>): TemplateLimits {
  return { timeoutMs: config.templateTimeoutMs, maxOutput: config.templateMaxOutput, maxMemory: config.templateMaxMemory };
}

/**
 * Renders a template (user input) with Nunjucks, a Jinja2-compatible engine, inside a QuickJS machine
 * (WebAssembly) on one of the sandbox pool's worker threads: nothing of the host is reachable from it,
 * and a template that loops, recurses or allocates without end is stopped by the machine's deadline,
 * heap limit and stack limit and reported, while the server's event loop goes on. The context is plain
 * JSON data. A failure is told as NetBox tells it: "An error occurred while rendering the template
 * (line N): ...". `busy` (the pool's queue is full) is for the caller to answer 503 or retry later.
 */
export async function renderTemplate(code: string, context: Record<string, unknown> | ContextJson, options: TemplateOptions, limits: TemplateLimits): Promise<Rendered> {
  const contextJson = context instanceof ContextJson ? context.text : JSON.stringify(context);
  const backstopMs = limits.timeoutMs ? limits.timeoutMs + Math.max(2000, limits.timeoutMs / 2) : 0;
  return sharedSandbox().run<Rendered>(
    { kind: 'render', code, contextJson, options, limits },
    backstopMs,
    (why, detail) => ({ ok: false, message: failure(null, why === 'deadline' ? `rendering took longer than ${limits.timeoutMs / 1000} seconds` : detail) }),
    () => ({ ok: false, busy: true, message: failure(null, 'too many templates are being rendered at once; try again shortly') }),
  );
}

/** The options in a stored environment_params value (anything else in it is ignored). */
export function templateOptions(value: unknown): TemplateOptions {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const v = value as Record<string, unknown>;
  const flag = (k: string) => (typeof v[k] === 'boolean' ? (v[k] as boolean) : undefined);
  return { autoescape: flag('autoescape'), trim_blocks: flag('trim_blocks'), lstrip_blocks: flag('lstrip_blocks'), keep_trailing_newline: flag('keep_trailing_newline') };
}

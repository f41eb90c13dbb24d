import { Worker } from 'node:worker_threads';
import { SANDBOX_SOURCE } from './template-sandbox';

/** The Jinja2 environment parameters Patchbay honours (a config template's environment_params). */
export interface TemplateOptions {
  autoescape?: boolean;
  trim_blocks?: boolean;
  lstrip_blocks?: boolean;
  keep_trailing_newline?: boolean;
}

export interface TemplateLimits {
  /** Milliseconds before the rendering is stopped; 0: no limit. */
  timeoutMs: number;
  /** Bytes the output may take. */
  maxOutput: number;
}

export type Rendered = { ok: true; text: string } | { ok: false; message: string };

const NUNJUCKS = require.resolve('nunjucks');
const RUNTIME = require.resolve('nunjucks/src/runtime');

/** Heap and stack for one rendering: enough for large outputs, small enough that a runaway one is stopped. */
const RESOURCES = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 };

/**
 * Renders a template (user input) with Nunjucks, a Jinja2-compatible engine, in a worker thread of its
 * own: a template that loops for ever, recurses without end or builds a huge string is stopped (time,
 * memory and output bounds) and reported, and the server's event loop never waits on it. The context
 * is plain JSON data. A failure is told as NetBox tells it: "An error occurred while rendering the
 * template (line N): ...".
 */
export function renderTemplate(code: string, context: Record<string, unknown>, options: TemplateOptions, limits: TemplateLimits): Promise<Rendered> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: Rendered) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      void worker.terminate();
      resolve(r);
    };
    const worker = new Worker(SANDBOX_SOURCE, {
      eval: true,
      workerData: { nunjucks: NUNJUCKS, runtime: RUNTIME, code, context, options, maxOutput: limits.maxOutput },
      resourceLimits: RESOURCES,
      env: {},
      stdout: true,
      stderr: true,
    });
    const timer = limits.timeoutMs ? setTimeout(() => done({ ok: false, message: failure(null, `rendering took longer than ${limits.timeoutMs / 1000} seconds`) }), limits.timeoutMs) : null;
    worker.on('message', (m: { ok: boolean; text?: string; line?: number | null; message?: string }) => {
      done(m.ok ? { ok: true, text: m.text ?? '' } : { ok: false, message: failure(m.line ?? null, m.message ?? 'error') });
    });
    worker.on('error', (e: Error & { code?: string }) => {
      const why = e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'it needed more memory than a rendering may use' : e.message;
      done({ ok: false, message: failure(null, why) });
    });
    worker.on('exit', () => done({ ok: false, message: failure(null, 'the rendering stopped') }));
  });
}

function failure(line: number | null, message: string): string {
  return `An error occurred while rendering the template (line ${line ?? 'unknown'}): ${message}`;
}

/** The options in a stored environment_params value (anything else in it is ignored). */
export function templateOptions(value: unknown): TemplateOptions {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const v = value as Record<string, unknown>;
  const flag = (k: string) => (typeof v[k] === 'boolean' ? (v[k] as boolean) : undefined);
  return { autoescape: flag('autoescape'), trim_blocks: flag('trim_blocks'), lstrip_blocks: flag('lstrip_blocks'), keep_trailing_newline: flag('keep_trailing_newline') };
}

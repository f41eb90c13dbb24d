import fs from 'node:fs';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { VM_PROGRAM } from './vm-program';
import { VM_JINJA_FILTERS } from './vm-jinja-filters';
import { VM_PYTHON_STRINGS } from './vm-python-strings';
import type { RenderTask, Rendered } from './sandbox-protocol';

/** Why a rendering was stopped by the machine's own bounds (the machine is rebuilt after any of them). */
type Stop = 'time' | 'memory' | 'stack';

const STOP_MESSAGES: Record<Stop, (t: RenderTask) => string> = {
  time: (t) => `rendering took longer than ${t.limits.timeoutMs / 1000} seconds`,
  memory: (t) => `it needed more memory than a rendering may use (${Math.round(t.limits.maxMemory / 1048576)} MB)`,
  stack: () => 'it nests or recurses too deeply',
};

/** QuickJS's own stack bound; the worker thread's native stack is made far larger, so this one is met first. */
const VM_STACK_BYTES = 1024 * 1024;

/**
 * A QuickJS virtual machine (WebAssembly: its own heap, nothing of Node inside it) holding Nunjucks and
 * the program of vm-program.ts, kept for many renderings. Each rendering runs under an interrupt
 * deadline, a heap limit and a stack limit; a rendering stopped by any of them leaves the machine to be
 * rebuilt before the next one, so no half-finished state is ever reused.
 */
export class TemplateVm {
  private runtime: QuickJSRuntime | null = null;
  private context: QuickJSContext | null = null;
  private renderFn: QuickJSHandle | null = null;

  private constructor(
    private readonly module: QuickJSWASMModule,
    private readonly nunjucksSource: string,
  ) {}

  static async create(): Promise<TemplateVm> {
    const module = await newQuickJSWASMModuleFromVariant(variant);
    const source = fs.readFileSync(require.resolve('nunjucks/browser/nunjucks.min.js'), 'utf8');
    const vm = new TemplateVm(module, source);
    vm.build();
    return vm;
  }

  /** Bytes of WebAssembly memory the machine holds; it never shrinks, so a worker that grew large is replaced. */
  heapBytes(): number {
    const inner = (this.module as unknown as { module?: { HEAPU8?: Uint8Array } }).module;
    return inner?.HEAPU8?.byteLength ?? 0;
  }

  render(task: RenderTask): Rendered {
    if (!this.context) this.build();
    const runtime = this.runtime!;
    const context = this.context!;
    const deadline = task.limits.timeoutMs ? Date.now() + task.limits.timeoutMs : Infinity;
    let timedOut = false;
    runtime.setInterruptHandler(() => {
      if (Date.now() <= deadline) return false;
      timedOut = true;
      return true;
    });
    runtime.setMemoryLimit(task.limits.maxMemory);
    const args = [context.newString(task.code), context.newString(task.contextJson), context.newString(JSON.stringify(task.options)), context.newNumber(task.limits.maxOutput)];
    let answer: { ok: true; text: string } | { ok: false; line: number | null; message: string; output?: boolean };
    let stop: Stop | null = null;
    try {
      const result = context.callFunction(this.renderFn!, context.undefined, ...args);
      if (result.error) {
        const e = context.dump(result.error) as { message?: unknown } | undefined;
        result.error.dispose();
        answer = { ok: false, line: null, message: typeof e?.message === 'string' ? e.message : String(e) };
      } else {
        answer = JSON.parse(context.getString(result.value)) as typeof answer;
        result.value.dispose();
      }
    } catch (e) {
      // The host's own stack or memory gave out inside the machine: nothing of it can be trusted any more.
      answer = { ok: false, line: null, message: (e as Error).message };
      stop = 'stack';
    } finally {
      for (const a of args) if (a.alive) a.dispose();
      runtime.removeInterruptHandler();
    }
    if (!answer.ok) {
      stop ??= timedOut || /\binterrupted\b/.test(answer.message) ? 'time' : /out of memory/.test(answer.message) ? 'memory' : /stack overflow/.test(answer.message) ? 'stack' : null;
      if (stop) {
        this.teardown();
        return { ok: false, message: failure(null, STOP_MESSAGES[stop](task)) };
      }
      if (answer.output) return { ok: false, message: failure(null, `the output is larger than ${task.limits.maxOutput} bytes`) };
      return { ok: false, message: failure(answer.line, answer.message) };
    }
    if (Buffer.byteLength(answer.text, 'utf8') > task.limits.maxOutput) return { ok: false, message: failure(null, `the output is larger than ${task.limits.maxOutput} bytes`) };
    return { ok: true, text: answer.text };
  }

  dispose(): void {
    this.teardown();
  }

  private build(): void {
    const runtime = this.module.newRuntime();
    runtime.setMaxStackSize(VM_STACK_BYTES);
    const context = runtime.newContext();
    // Nunjucks' browser bundle assigns itself to the global object (`this` of global code).
    context.unwrapResult(context.evalCode(this.nunjucksSource, 'nunjucks.js')).dispose();
    context.unwrapResult(context.evalCode(VM_PYTHON_STRINGS, 'python-strings.js')).dispose();
    context.unwrapResult(context.evalCode(VM_JINJA_FILTERS, 'jinja-filters.js')).dispose();
    context.unwrapResult(context.evalCode(VM_PROGRAM, 'program.js')).dispose();
    this.runtime = runtime;
    this.context = context;
    this.renderFn = context.getProp(context.global, 'render');
  }

  private teardown(): void {
    this.renderFn?.dispose();
    this.context?.dispose();
    this.runtime?.dispose();
    this.renderFn = null;
    this.context = null;
    this.runtime = null;
  }
}

/** A failure told as NetBox tells it. */
export function failure(line: number | null, message: string): string {
  return `An error occurred while rendering the template (line ${line ?? 'unknown'}): ${message}`;
}

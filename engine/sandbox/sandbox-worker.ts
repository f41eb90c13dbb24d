import { parentPort, workerData } from 'node:worker_threads';
import { TemplateVm } from './template-vm';
import { judgeInWorker } from './judge-in-worker';
import type { SandboxTask, TaskResult, WorkerReply } from './sandbox-protocol';

/**
 * A sandbox worker thread: takes one task at a time from the pool and answers it. Templates run inside
 * the QuickJS machine (template-vm.ts), never in this thread's JavaScript; condition sets are judged
 * here, on RE2 (linear time), away from the server's event loop.
 */
const { retireHeapBytes } = workerData as { retireHeapBytes: number };

async function main(): Promise<void> {
  const vm = await TemplateVm.create();
  parentPort!.on('message', (task: SandboxTask) => {
    const result: TaskResult = task.kind === 'render' ? vm.render(task) : judgeInWorker(task);
    const reply: WorkerReply = { result, retire: vm.heapBytes() > retireHeapBytes };
    parentPort!.postMessage(reply);
  });
  parentPort!.postMessage('ready');
}

void main();

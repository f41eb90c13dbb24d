/** `npm run bench` (through tsx): the benchmark is a development tool, not a command of the production CLI. */
import { runBench } from './run-bench';
import { runTopology } from './topology/run-topology';

const args = process.argv.slice(2);
(args.includes('--topology') ? runTopology(args) : runBench(args)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);

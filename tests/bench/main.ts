/** `npm run bench` (through tsx): the benchmark is a development tool, not a command of the production CLI. */
import { runBench } from './run-bench';

runBench(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);

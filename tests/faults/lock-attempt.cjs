// A process taking embedded data folders' locks on cue; data-dir-lock.test.ts runs 40 of them at once.
// Prints "ready"; then for each stdin line "<at> <folder>" (at: ms since the epoch) spins until that instant,
// so that all processes start together, tries, and prints "acquired" or "refused <message>". It holds
// whatever it got until stdin closes.
const path = require('node:path');
const readline = require('node:readline');
const { lockDataDir } = require(path.resolve(__dirname, '..', '..', 'dist', 'engine', 'database', 'data-dir-lock.js'));

const now = () => performance.timeOrigin + performance.now();
process.stdout.write('ready\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const [at, dir] = [Number(line.slice(0, line.indexOf(' '))), line.slice(line.indexOf(' ') + 1)];
  setTimeout(() => {
    while (now() < at);
    lockDataDir(dir).then(
      () => process.stdout.write('acquired\n'),
      (e) => process.stdout.write(`refused ${e.message}\n`),
    );
  }, Math.max(0, at - now() - 5));
}).on('close', () => process.exit(0));

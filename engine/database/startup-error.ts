/**
 * A failure to start that the operator needs in one line, not a stack: the database never answered, the
 * data folder is another process's. engine/cli/bin.cjs prints its message alone.
 */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** A model definition that cannot be used: names the file, the JSON pointer of the fault and the reason. */
export class DefinitionError extends Error {
  constructor(
    readonly file: string,
    readonly pointer: string,
    readonly reason: string,
  ) {
    super(`${file}#${pointer || '/'}: ${reason}`);
    this.name = 'DefinitionError';
  }
}

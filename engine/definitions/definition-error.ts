/** A model definition that cannot be used: names the file, the JSON pointer of the fault and the reason. */
export class DefinitionError extends Error {
  constructor(
    readonly file: string,
    readonly pointer: string,
    readonly reason: string,
  ) {
    super(definitionErrorLine(file, pointer, reason));
    this.name = 'DefinitionError';
  }
}

/**
 * How a fault is shown to a model author: `schema/app/file.json:/json/pointer: reason`, one line, the
 * form editors and CI logs link back to a place. The whole document is "/".
 */
export function definitionErrorLine(file: string, pointer: string, reason: string): string {
  return `${file}:${pointer || '/'}: ${reason}`;
}

/**
 * Every fault found in one reading of the definitions. It is a DefinitionError itself (its file, pointer
 * and reason are the first fault's), so a caller that wants one fault still gets one; its message is
 * every line.
 */
export class DefinitionErrors extends DefinitionError {
  constructor(readonly errors: readonly DefinitionError[]) {
    const first = errors[0]!;
    super(first.file, first.pointer, first.reason);
    this.message = errors.map((e) => e.message).join('\n');
    this.name = 'DefinitionError';
  }

  /** The lines, as the CLI prints them. */
  get lines(): string[] {
    return this.errors.map((e) => e.message);
  }
}

import { createHash } from 'node:crypto';

/** The name a statement is prepared under: the same text always gets the same name. */
export function preparedName(text: string): string {
  return `pb_${createHash('sha1').update(text).digest('hex')}`;
}

/**
 * How many statements one connection keeps prepared. The shapes of reads are many (each combination of
 * filters is its own text); past this the connection forgets them, which frees their plans on the server.
 */
export const MAX_PREPARED_PER_CONNECTION = 500;

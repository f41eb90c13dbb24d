/**
 * SQL composed from fragments that carry their own bound values, as PostgREST's SqlFragment: a fragment
 * is text with holes, each hole a value bound at execution. Fragments nest inside fragments, so no code
 * counts placeholders, orders bindings by hand or pastes a value into SQL text. Identifiers come from the
 * definitions and go through `ident` (checked, quoted); everything else a caller interpolates is bound.
 */

/** A value PostgreSQL receives as a bound parameter. */
export type SqlValue = string | number | boolean | null | bigint | Date | readonly unknown[] | { readonly [key: string]: unknown };

/**
 * A hole whose value is given later, by name (`Sql.bindParams`): a fragment compiled once and kept
 * (a model's representation) is reused by every request, each binding its own values.
 */
export class SqlParam {
  constructor(readonly name: string) {}
}

export class Sql {
  /** `texts.length === values.length + 1`: values[i] goes between texts[i] and texts[i + 1]. */
  private constructor(
    readonly texts: readonly string[],
    readonly values: ReadonlyArray<SqlValue | SqlParam>,
  ) {}

  /** Builds from parts already split around their values; merges nested fragments. */
  static from(texts: readonly string[], args: ReadonlyArray<Sql | SqlValue | SqlParam>): Sql {
    const outTexts: string[] = [texts[0] ?? ''];
    const outValues: Array<SqlValue | SqlParam> = [];
    args.forEach((arg, i) => {
      if (arg instanceof Sql) {
        outTexts[outTexts.length - 1] += arg.texts[0]!;
        for (let j = 0; j < arg.values.length; j++) {
          outValues.push(arg.values[j]!);
          outTexts.push(arg.texts[j + 1]!);
        }
      } else {
        outValues.push(arg);
        outTexts.push('');
      }
      outTexts[outTexts.length - 1] += texts[i + 1] ?? '';
    });
    return new Sql(outTexts, outValues);
  }

  /** Text the engine wrote itself (keywords, operators, casts): never text that came from a request or a definition. */
  static keyword(text: string): Sql {
    if (/['"?$;]|--|\/\*/.test(text)) throw new Error(`not a bare SQL keyword: ${text}`);
    return new Sql([text], []);
  }

  /** An identifier (a table or column name from the definitions, or an alias the engine chose), quoted. */
  static ident(name: string): Sql {
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) throw new Error(`not an identifier: ${JSON.stringify(name)}`);
    return new Sql([`"${name}"`], []);
  }

  /** The fragment with each SqlParam hole given its value; a name without a value is an error. */
  bindParams(params: Readonly<Record<string, SqlValue>>): Sql {
    const values = this.values.map((v) => {
      if (!(v instanceof SqlParam)) return v;
      if (!Object.prototype.hasOwnProperty.call(params, v.name)) throw new Error(`no value for SQL parameter ${v.name}`);
      return params[v.name]!;
    });
    return new Sql(this.texts, values);
  }

  isEmpty(): boolean {
    return this.values.length === 0 && this.texts.every((t) => t.trim() === '');
  }

  /** The values, refusing a SqlParam left without one. */
  private boundValues(): SqlValue[] {
    return this.values.map((v) => {
      if (v instanceof SqlParam) throw new Error(`no value for SQL parameter ${v.name}`);
      return v;
    });
  }

  /**
   * The statement with `$1, $2...` holes, as PostgreSQL's extended protocol takes it (engine/database's
   * Db.run). A `?` in the engine's own text is plain text: only `$n` is a hole.
   */
  toPositional(): { text: string; values: SqlValue[] } {
    let text = this.texts[0]!;
    for (let i = 0; i < this.values.length; i++) text += `$${i + 1}${this.texts[i + 1]!}`;
    return { text, values: this.boundValues() };
  }
}

/** sql`SELECT ${value}` binds value; sql`... ${fragment}` splices a fragment with its own values. */
export function sql(strings: TemplateStringsArray, ...args: ReadonlyArray<Sql | SqlValue | SqlParam>): Sql {
  return Sql.from(strings, args);
}

export const ident = (name: string): Sql => Sql.ident(name);
export const keyword = (text: string): Sql => Sql.keyword(text);

/** `alias.column`, both identifiers. */
export function column(alias: string, name: string): Sql {
  return sql`${ident(alias)}.${ident(name)}`;
}

/** The fragments with `separator` between them. */
export function join(parts: readonly Sql[], separator: Sql | string = ', '): Sql {
  const sep = typeof separator === 'string' ? Sql.keyword(separator) : separator;
  if (!parts.length) return sql``;
  return parts.slice(1).reduce((acc, p) => sql`${acc}${sep}${p}`, parts[0]!);
}

/** The conditions AND-ed (TRUE when there are none), each in parentheses. */
export function and(conditions: readonly Sql[]): Sql {
  return conditions.length ? join(conditions.map((c) => sql`(${c})`), ' AND ') : sql`TRUE`;
}

/** The conditions OR-ed (FALSE when there are none), each in parentheses. */
export function or(conditions: readonly Sql[]): Sql {
  return conditions.length ? join(conditions.map((c) => sql`(${c})`), ' OR ') : sql`FALSE`;
}

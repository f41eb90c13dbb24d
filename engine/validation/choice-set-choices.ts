/**
 * The choices of a custom field choice set (the model with the custom_field_choice_set role): its
 * extra_choices as [value, label] pairs, ordered by value when order_alphabetically is set, as NetBox's
 * CustomFieldChoiceSet.choices. NetBox's predefined base sets (IATA, ISO 3166, UN/LOCODE) are data
 * Patchbay does not ship, so a set naming one is refused when written (engine/writes/role-hooks.ts).
 */
export type Choice = [string, string];

export function expandChoices(set: { extra: unknown; alphabetical: boolean }): Choice[] {
  const raw: unknown = typeof set.extra === 'string' ? JSON.parse(set.extra) : set.extra;
  const choices: Choice[] = Array.isArray(raw)
    ? raw.filter((c): c is unknown[] => Array.isArray(c) && c.length >= 2).map((c) => [String(c[0]), String(c[1])])
    : [];
  return set.alphabetical ? [...choices].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) : choices;
}

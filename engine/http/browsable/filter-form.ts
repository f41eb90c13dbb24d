import type { ResolvedModel } from '../../definitions/registry-types';
import { filterTable, type FilterDef } from '../../filters/filter-table';
import { LOOKUP_MEANINGS } from '../../openapi/list-parameters';
import { escapeHtml } from './html';

const SHAPING = new Set(['limit', 'offset', 'ordering', 'brief', 'exclude', 'format', 'fields', 'include', 'q']);

function input(id: string, name: string, value: string, extra = ''): string {
  return `<input id="${escapeHtml(id)}" name="${escapeHtml(name)}" value="${escapeHtml(value)}"${extra}>`;
}

function filterControl(def: FilterDef, id: string, value: string): string {
  const set = def.kind === 'choice' ? def.field?.choices : undefined;
  if (set) {
    const options = ['<option value="">any</option>', ...set.entries.map((e) => `<option value="${escapeHtml(String(e.value))}"${String(e.value) === value ? ' selected' : ''}>${escapeHtml(e.label)}</option>`)];
    return `<select id="${escapeHtml(id)}" name="${escapeHtml(def.name)}">${options.join('')}</select>`;
  }
  if (def.kind === 'boolean') {
    const options = [['', 'any'], ['true', 'yes'], ['false', 'no']].map(([v, l]) => `<option value="${v}"${v === value ? ' selected' : ''}>${l}</option>`);
    return `<select id="${escapeHtml(id)}" name="${escapeHtml(def.name)}">${options.join('')}</select>`;
  }
  return input(id, def.name, value);
}

function lookupList(def: FilterDef): string {
  const others = def.lookups.filter((l) => l !== 'exact');
  if (!others.length) return '';
  const items = others.map((l) => `<code title="${escapeHtml(LOOKUP_MEANINGS[l] ?? l)}">${escapeHtml(`${def.name}__${l}`)}</code>`);
  return `<span class="lookups">also ${items.join(' ')}</span>`;
}

/**
 * The filter parameters of a list endpoint as a form: search, ordering, page size, brief, and one
 * control per filter (its exact lookup), each naming the other lookups it takes. Empty controls are
 * left out when the form is sent, so they filter nothing.
 */
export function filterForm(model: ResolvedModel, query: URLSearchParams, docsHref: string): string {
  const defs = [...filterTable(model).values()].filter((d) => !SHAPING.has(d.name));
  const rows: string[] = [];
  const row = (id: string, label: string, control: string, hint = '') =>
    rows.push(`<tr><th scope="row"><label for="${escapeHtml(id)}">${escapeHtml(label)}</label></th><td>${control}</td><td>${hint}</td></tr>`);
  if (model.search.length) row('f-q', 'q (search)', input('f-q', 'q', query.get('q') ?? '', ' type="search"'), `<span class="lookups">searches ${escapeHtml(model.search.join(', '))}</span>`);
  row('f-ordering', 'ordering', input('f-ordering', 'ordering', query.get('ordering') ?? '', ' placeholder="e.g. -id"'), '<span class="lookups">comma-separated; - for descending</span>');
  row('f-limit', 'limit', input('f-limit', 'limit', query.get('limit') ?? '', ' type="number" min="0"'), '');
  row('f-brief', 'brief', `<input type="checkbox" id="f-brief" name="brief" value="1"${query.get('brief') ? ' checked' : ''}>`, '');
  for (const def of defs) {
    const id = `f-${def.name}`;
    const control = def.lookups.includes('exact') ? filterControl(def, id, query.get(def.name) ?? '') : `<span id="${escapeHtml(id)}">—</span>`;
    row(id, def.name, control, lookupList(def));
  }
  const open = [...query.keys()].some((k) => k !== 'format' && k !== 'offset') ? ' open' : '';
  return `<section aria-labelledby="filters-h" class="filters">
<details${open}><summary><h2 id="filters-h">Filters</h2> <span class="count">${defs.length} filters, each also with lookups (<code>&lt;name&gt;__&lt;lookup&gt;</code>); custom fields as <code>cf_&lt;name&gt;</code></span></summary>
<form method="get" id="filter-form">
<table><thead><tr><th scope="col">Parameter</th><th scope="col">Value</th><th scope="col">Other lookups</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
<p><button type="submit">Apply filters</button> <a href="?">Reset</a> · <a href="${escapeHtml(docsHref)}">every parameter in the API documentation</a></p>
</form>
<script>
document.getElementById('filter-form').addEventListener('submit', function () {
  for (var el of this.elements) if (el.name && !el.value) el.disabled = true;
});
</script>
</details>
</section>`;
}

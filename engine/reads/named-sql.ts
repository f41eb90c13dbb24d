import { sql, type Sql } from '../sql/fragment';
import type { ComputedFunctionName, DisplayFunctionName } from '../definitions/named-functions';

/**
 * The named functions of engine/definitions/named-functions.ts, in SQL: what a definition names by "fn" is
 * computed by PostgreSQL when a read is compiled to one statement. Each takes the values its definition
 * lists in "from", as text (NULL when unset).
 */
type NamedSql = (from: readonly Sql[]) => Sql;

const at = (from: readonly Sql[], i: number): Sql => from[i] ?? sql`NULL::text`;

/** computed fields: the value, as JSON-ready SQL (a number, a string or NULL). */
export const COMPUTED_SQL: Record<Exclude<ComputedFunctionName, 'display'>, NamedSql> = {
  ip_family: (from) => sql`family(${at(from, 0)}::inet)`,
  // inet - inet is a bigint: exact while both ends share their first 65 bits (always for IPv4); a wider
  // IPv6 range has no size here (NULL) rather than a 'result is out of range' error.
  ip_range_size: (from) =>
    sql`(CASE WHEN family(${at(from, 0)}::inet) = family(${at(from, 1)}::inet) AND (family(${at(from, 0)}::inet) = 4 OR network(set_masklen(${at(from, 0)}::inet, 65)) = network(set_masklen(${at(from, 1)}::inet, 65)))
      THEN host(${at(from, 1)}::inet)::inet - host(${at(from, 0)}::inet)::inet + 1 END)`,
  // NetBox's VLAN group utilization: Round(count / (max - min + 1.0) * 100, 2), shown as a string ("0.73").
  percent_of_span: (from) => sql`(round(${at(from, 0)}::numeric * 100 / (${at(from, 2)}::numeric - ${at(from, 1)}::numeric + 1), 2))::text`,
  json_array_length: (from) => sql`coalesce(jsonb_array_length(CASE WHEN jsonb_typeof(${at(from, 0)}::jsonb) = 'array' THEN ${at(from, 0)}::jsonb END), 0)`,
  custom_field_data_type: (from) =>
    sql`CASE ${at(from, 0)} WHEN 'integer' THEN 'integer' WHEN 'decimal' THEN 'decimal' WHEN 'boolean' THEN 'boolean' WHEN 'json' THEN 'object' WHEN 'object' THEN 'object' WHEN 'multiselect' THEN 'array' WHEN 'multiobject' THEN 'array' WHEN NULL THEN NULL ELSE 'string' END`,
};

/** display functions: the display string (never NULL). */
export const DISPLAY_SQL: Record<DisplayFunctionName, NamedSql> = {
  object_change_display: (from) =>
    sql`concat(replace(coalesce(${at(from, 0)}, ''), '.', ' | '), ' ', ${at(from, 1)}, ' ', CASE ${at(from, 2)} WHEN 'create' THEN 'created' WHEN 'update' THEN 'updated' WHEN 'delete' THEN 'deleted' ELSE '' END, ' by ', ${at(from, 3)})`,
  cable_termination_display: (from) => sql`concat(${at(from, 0)}, ': ', ${at(from, 1)}, ':', ${at(from, 2)})`,
  label_or_name: (from) =>
    sql`CASE WHEN coalesce(${at(from, 0)}, '') <> '' THEN ${at(from, 0)} ELSE concat(upper(left(replace(coalesce(${at(from, 1)}, ''), '_', ' '), 1)), substr(replace(coalesce(${at(from, 1)}, ''), '_', ' '), 2)) END`,
  name_or_file: (from) => sql`CASE WHEN coalesce(${at(from, 0)}, '') <> '' THEN ${at(from, 0)} ELSE regexp_replace(coalesce(${at(from, 1)}, ''), '^.*/', '') END`,
  vrf_display: (from) => sql`CASE WHEN coalesce(${at(from, 1)}, '') <> '' THEN concat(${at(from, 0)}, ' (', ${at(from, 1)}, ')') ELSE coalesce(${at(from, 0)}, '') END`,
  asn_display: (from) => sql`CASE WHEN ${at(from, 0)}::bigint > 65535 THEN concat('AS', ${at(from, 0)}, ' (', ${at(from, 0)}::bigint / 65536, '.', ${at(from, 0)}::bigint % 65536, ')') ELSE concat('AS', ${at(from, 0)}) END`,
  // Runs of consecutive ports (gaps and islands: value minus position is constant along a run).
  service_display: (from) =>
    sql`concat(${at(from, 0)}, ' (', upper(${at(from, 1)}), '/', (SELECT string_agg(CASE WHEN "lo" = "hi" THEN "lo"::text ELSE concat("lo", '-', "hi") END, ', ' ORDER BY "first") FROM (SELECT min("p") AS "lo", max("p") AS "hi", min("o") AS "first" FROM unnest(${at(from, 2)}::int[]) WITH ORDINALITY AS "u"("p", "o") GROUP BY "p" - "o") AS "r"), ')')`,
  fhrp_group_display: (from) =>
    sql`concat(CASE WHEN coalesce(${at(from, 0)}, '') <> '' THEN concat(${at(from, 0)}, ' ') END, CASE ${at(from, 1)} WHEN 'vrrp2' THEN 'VRRPv2' WHEN 'vrrp3' THEN 'VRRPv3' WHEN 'carp' THEN 'CARP' WHEN 'clusterxl' THEN 'ClusterXL' WHEN 'hsrp' THEN 'HSRP' WHEN 'glbp' THEN 'GLBP' WHEN 'other' THEN 'Other' ELSE ${at(from, 1)} END, ': ', ${at(from, 2)})`,
  ip_range_display: (from) =>
    sql`coalesce((SELECT concat(array_to_string("x"."base", "x"."sep"), "x"."sep", array_to_string("x"."a"[cardinality("x"."base") + 1:], "x"."sep"), '-', array_to_string("x"."b"[cardinality("x"."base") + 1:], "x"."sep"), '/', masklen(${at(from, 0)}::inet))
      FROM (SELECT "s"."sep", "s"."a", "s"."b", ARRAY(SELECT "u"."x" FROM unnest("s"."a", "s"."b") WITH ORDINALITY AS "u"("x", "y", "i") WHERE "u"."x" = "u"."y" ORDER BY "u"."i") AS "base"
        FROM (SELECT "d"."sep", string_to_array(host(${at(from, 0)}::inet), "d"."sep") AS "a", string_to_array(host(${at(from, 1)}::inet), "d"."sep") AS "b"
          FROM (SELECT CASE WHEN family(${at(from, 0)}::inet) = 6 THEN ':' ELSE '.' END AS "sep") AS "d") AS "s") AS "x"
      WHERE ${at(from, 0)} IS NOT NULL AND ${at(from, 1)} IS NOT NULL), '')`,
  cable_display: (from) => sql`CASE WHEN coalesce(${at(from, 0)}, '') <> '' THEN ${at(from, 0)} ELSE concat('#', ${at(from, 1)}) END`,
  token_display: (from) => sql`CASE WHEN coalesce(${at(from, 0)}, '') = '' THEN '' ELSE concat(repeat('*', greatest(length(${at(from, 0)}) - 4, 0)), right(${at(from, 0)}, 4)) END`,
};

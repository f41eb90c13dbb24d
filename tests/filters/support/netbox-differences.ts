/**
 * Where the filters Patchbay serves differ from NetBox 3.7.8's on the same endpoint, each with its
 * reason. derived-filters.test.ts compares both ways: every difference found must be listed here, and
 * everything listed here must still be a difference (a gap Patchbay now fills, or an extra NetBox has
 * after all, fails the test until its entry goes).
 *
 * An item is a filter (`asn`: the whole filter) or one lookup of a filter both have (`status__empty`).
 * `on` maps endpoints (`<app>/<path>`) to items; the endpoint `*` means every endpoint Patchbay serves
 * where the side having the item has it (NetBox for a gap, Patchbay for an extra).
 */

export interface Difference {
  why: string;
  /**
   * A gap about an object type Patchbay does not define yet (`app.model`). Once the type is defined
   * the entry no longer excuses the gap: serve the filter, or give another reason.
   */
  notYet?: string;
  on: Record<string, string[]>;
}

/** Endpoints NetBox does not have: their filters are Patchbay's own, tested by their own suites. */
export const PATCHBAY_ONLY_ENDPOINTS: Array<{ endpoint: string; why: string }> = [
  { endpoint: 'extras/event-deliveries', why: 'the transactional outbox of events, with each delivery\'s status and last error (NetBox keeps them in Redis queues): tests/events/delivery.test.ts' },
];

/**
 * Endpoints NetBox 3.7 has whose filters the reference data (netbox-3.7-api.json, condensed for the circuits,
 * dcim, extras, ipam, plugins, tenancy, users and virtualization apps) does not hold: their filters are
 * tested by their own suites until the reference covers them (an endpoint it holds must leave this list).
 */
export const UNREFERENCED_ENDPOINTS: Array<{ endpoint: string; why: string }> = [
  ...['vpn/l2vpns', 'vpn/l2vpn-terminations', 'wireless/wireless-lan-groups', 'wireless/wireless-lans', 'wireless/wireless-links',
    'vpn/tunnel-groups', 'vpn/tunnels', 'vpn/tunnel-terminations', 'vpn/ike-proposals', 'vpn/ike-policies', 'vpn/ipsec-proposals', 'vpn/ipsec-policies', 'vpn/ipsec-profiles'].map((endpoint) => ({
    endpoint,
    why: 'the vpn and wireless apps are outside the reference data: tests/wireless/, tests/vpn/',
  })),
];

/** Filters and lookups NetBox has that Patchbay does not. Those marked "one line" are a single declaration in schema/. */
export const GAPS: Difference[] = [
  // Object types Patchbay does not define.
  { why: 'data sources (config contexts synchronised from them)', notYet: 'core.datasource', on: { 'extras/config-contexts': ['data_source_id', 'data_synced'] } },
  { why: 'data files', notYet: 'core.datafile', on: { 'extras/config-contexts': ['data_file_id'] } },
  { why: 'data sources and data files belong to NetBox\'s core application, outside the applications Patchbay serves (docs/extras.md)', notYet: 'core.datasource', on: { 'extras/config-templates': ['data_file_id', 'data_source_id', 'data_synced'], 'extras/export-templates': ['data_file_id', 'data_source_id', 'data_synced'] } },
];


/** A deliberate difference: Patchbay refuses what NetBox serves, for a reason its documentation states. */
export interface Decision extends Difference {
  /** The section of docs/ that states the decision (file#anchor). */
  docs: string;
}

/**
 * Filters and lookups NetBox has that Patchbay refuses on purpose: unlike a gap, none is to be served.
 * derived-filters.test.ts accepts them as it accepts GAPS, and holds each to still be a difference.
 */
export const DECISIONS: Decision[] = [
  {
    why: 'objects by the request that changed them, from the change log: webhooks are not change-logged ("change_logged": false: their secret would reach the log\'s data)',
    docs: 'docs/filtering.md#deliberate-differences-from-netbox',
    on: { 'extras/webhooks': ['created_by_request', 'modified_by_request', 'updated_by_request'] },
  },
  {
    why: 'a secret matches by its whole value only: with these a key is recovered a character at a time (count 1 vs 0), even with ALLOW_TOKEN_RETRIEVAL off',
    docs: 'docs/filtering.md#deliberate-differences-from-netbox',
    on: {
      'users/tokens': ['key__empty', 'key__ic', 'key__ie', 'key__iew', 'key__isw', 'key__n', 'key__nic', 'key__nie', 'key__niew', 'key__nisw'],
      'extras/webhooks': ['secret__empty', 'secret__ic', 'secret__ie', 'secret__iew', 'secret__isw', 'secret__n', 'secret__nic', 'secret__nie', 'secret__niew', 'secret__nisw'],
    },
  },
];

const STATUS_EMPTY = ['status__empty'];

/** Filters and lookups Patchbay has that NetBox does not: each follows one rule of docs/filtering.md, applied to every model alike. */
export const EXTRAS: Difference[] = [
  {
    why: 'every change-logged type filters by the request that created or updated it (docs/filtering.md, "Filters from the rows pointing at an object"); NetBox\'s filter sets for these are not change-logged ones',
    on: Object.fromEntries(['dcim/cable-terminations', 'extras/config-templates', 'extras/custom-field-choice-sets', 'extras/custom-fields', 'extras/custom-links', 'extras/export-templates', 'extras/image-attachments', 'extras/saved-filters'].map((e) => [e, ['created_by_request', 'modified_by_request', 'updated_by_request']])),
  },
  { why: 'every type offering contacts filters by them (docs/filtering.md, "Filters from the rows pointing at an object"); NetBox\'s provider accounts have contacts, but their filter set leaves the contact filters out', on: { 'circuits/provider-accounts': ['contact', 'contact_group', 'contact_role'] } },
  // The IPAM types added with allocation, by the same rules as every other type.
  { why: 'a list of integers filters by membership (docs/filtering.md), as a service\'s ports: ?units=12 lists the reservations holding unit 12; NetBox declares no filter for units', on: { 'dcim/rack-reservations': ['units'] } },
  { why: 'every choice filter takes empty (docs/filtering.md); NetBox\'s MultipleChoiceFilter has none', on: { 'ipam/fhrp-groups': ['auth_type__empty', 'protocol__empty'], 'ipam/ip-ranges': ['status__empty'], 'ipam/services': ['protocol__empty'], 'ipam/service-templates': ['protocol__empty'] } },
  { why: 'a computed field with a choice set filters as a choice (docs/filtering.md); NetBox\'s family is a number filter without lookups', on: { 'ipam/ip-ranges': ['family__n', 'family__empty'] } },
  { why: 'every stored field has the filter of its kind (docs/filtering.md); NetBox declares its filter fields by hand and leaves these out', on: { 'ipam/ip-ranges': ['start_address__n', 'start_address__empty', 'end_address__n', 'end_address__empty'], 'ipam/asn-ranges': ['slug'], 'ipam/services': ['ports'], 'ipam/service-templates': ['ports'] } },
  { why: 'every many-to-many field gives <field>_id and <field> by the target\'s natural key (docs/filtering.md, "Relations"); NetBox names these differently (asn_id, import_target_id...), and Patchbay serves those names too', on: { 'dcim/sites': ['asns_id'], 'circuits/providers': ['asns_id'], 'ipam/services': ['ipaddresses_id'], 'ipam/vrfs': ['import_targets', 'import_targets_id', 'export_targets', 'export_targets_id'] } },
  { why: 'a declared field filter has every lookup of the field\'s kind (an integer: lt, lte, gt, gte); NetBox\'s asn filter on sites and providers is exact only', on: { 'dcim/sites': ['asn__gt', 'asn__gte', 'asn__lt', 'asn__lte'], 'circuits/providers': ['asn__gt', 'asn__gte', 'asn__lt', 'asn__lte'] } },
  { why: 'every relation filter takes n (docs/filtering.md); NetBox\'s declared filters on these are exact only', on: { 'ipam/fhrp-group-assignments': ['device__n', 'device_id__n', 'virtual_machine__n', 'virtual_machine_id__n'], 'ipam/services': ['port__n'], 'ipam/service-templates': ['port__n'] } },
  { why: 'every foreign key gives <field>_id and <field> by the target\'s natural key (docs/filtering.md, "Relations"); NetBox declares group_id only', on: { 'ipam/fhrp-group-assignments': ['group'] } },
  {
    why: 'every string field takes the lookups of its kind (docs/filtering.md); NetBox declares a request id and a webhook\'s URL exact only',
    on: {
      'extras/object-changes': ['request_id__empty', 'request_id__ic', 'request_id__ie', 'request_id__iew', 'request_id__isw', 'request_id__n', 'request_id__nic', 'request_id__nie', 'request_id__niew', 'request_id__nisw'],
      'extras/webhooks': ['payload_url__empty', 'payload_url__ic', 'payload_url__ie', 'payload_url__iew', 'payload_url__isw', 'payload_url__n', 'payload_url__nic', 'payload_url__nie', 'payload_url__niew', 'payload_url__nisw'],
    },
  },
  {
    why: 'every choice filter takes empty (docs/filtering.md: choice, (exact), n, empty); NetBox\'s MultipleChoiceFilter has no empty',
    on: {
      'circuits/circuits': STATUS_EMPTY,
      'circuits/circuit-terminations': ['term_side__empty'],
      'dcim/cables': ['status__empty', 'type__empty', 'length_unit__empty'],
      'dcim/cable-terminations': ['cable_end__empty'],
      'dcim/devices': ['status__empty', 'face__empty', 'airflow__empty'],
      'dcim/device-types': ['subdevice_role__empty', 'airflow__empty', 'weight_unit__empty'],
      'dcim/interfaces': ['type__empty', 'duplex__empty', 'mode__empty', 'poe_mode__empty', 'poe_type__empty', 'rf_role__empty', 'rf_channel__empty'],
      'dcim/locations': STATUS_EMPTY,
      'dcim/racks': ['status__empty', 'type__empty', 'width__empty', 'weight_unit__empty', 'outer_unit__empty'],
      'dcim/sites': STATUS_EMPTY,
      'extras/custom-fields': ['type__empty', 'filter_logic__empty', 'ui_visible__empty', 'ui_editable__empty'],
      'extras/custom-field-choice-sets': ['base_choices__empty'],
      'extras/event-rules': ['action_type__empty'],
      'extras/journal-entries': ['kind__empty'],
      'extras/object-changes': ['action__empty'],
      'extras/webhooks': ['http_method__empty'],
      'ipam/ip-addresses': ['status__empty', 'role__empty'],
      'ipam/prefixes': STATUS_EMPTY,
      'ipam/vlans': STATUS_EMPTY,
      'tenancy/contact-assignments': ['priority__empty'],
      'virtualization/clusters': STATUS_EMPTY,
      'virtualization/virtual-machines': STATUS_EMPTY,
      ...Object.fromEntries(['console-port-templates', 'console-server-port-templates', 'console-ports', 'console-server-ports', 'front-port-templates', 'front-ports', 'rear-port-templates', 'rear-ports', 'power-port-templates', 'power-ports'].map((e) => [`dcim/${e}`, ['type__empty']])),
      'dcim/interface-templates': ['type__empty', 'poe_mode__empty', 'poe_type__empty', 'rf_role__empty'],
      'dcim/power-outlet-templates': ['type__empty', 'feed_leg__empty'],
      'dcim/power-outlets': ['type__empty', 'feed_leg__empty'],
      'dcim/power-feeds': ['status__empty', 'type__empty', 'supply__empty', 'phase__empty'],
      'dcim/module-types': ['weight_unit__empty'],
      'dcim/modules': STATUS_EMPTY,
      'dcim/virtual-device-contexts': STATUS_EMPTY,
    },
  },
  {
    why: 'a computed field with a choice set filters as a choice (docs/filtering.md: family, (exact), n, empty); NetBox\'s family is a number filter without lookups',
    on: { 'ipam/aggregates': ['family__n', 'family__empty'], 'ipam/ip-addresses': ['family__n', 'family__empty'], 'ipam/prefixes': ['family__n', 'family__empty'] },
  },
  {
    why: 'every stored field has the filter of its kind (docs/filtering.md: "Every field gets its filter from its kind"); NetBox declares its filter fields by hand and leaves these out',
    on: {
      '*': ['comments'],
      'dcim/sites': ['time_zone', 'physical_address', 'shipping_address'],
      'circuits/circuit-terminations': ['pp_info', 'mark_connected'],
      'dcim/interfaces': ['mark_connected'],
      ...Object.fromEntries(['console-ports', 'console-server-ports', 'power-ports', 'power-outlets', 'rear-ports', 'power-feeds'].map((e) => [`dcim/${e}`, ['mark_connected']])),
      ...Object.fromEntries(['console-port-templates', 'console-server-port-templates', 'power-port-templates', 'power-outlet-templates', 'interface-templates', 'front-port-templates', 'rear-port-templates', 'device-bay-templates', 'module-bay-templates'].map((e) => [`dcim/${e}`, ['label']])),
      'dcim/console-ports': ['mark_connected', 'speed'],
      'dcim/console-server-ports': ['mark_connected', 'speed'],
      'dcim/front-ports': ['mark_connected', 'rear_port_position'],
      'dcim/front-port-templates': ['label', 'rear_port_position'],
      'dcim/module-bay-templates': ['label', 'position'],
      'dcim/module-bays': ['position'],
      'dcim/inventory-items': ['description'],
      'dcim/virtual-device-contexts': ['identifier'],
      'virtualization/interfaces': ['mode'],
      'extras/custom-fields': ['object_type', 'label', 'validation_minimum', 'validation_maximum', 'validation_regex'],
      'extras/custom-links': ['button_class'],
      'extras/export-templates': ['template_code', 'mime_type', 'file_extension', 'as_attachment'],
      'extras/config-templates': ['template_code'],
      'extras/image-attachments': ['image_height', 'image_width'],
      'extras/config-contexts': ['weight'],
      'extras/object-changes': ['time'],
      'extras/webhooks': ['additional_headers', 'body_template'],
      'ipam/roles': ['weight'],
      'users/users': ['date_joined', 'last_login'],
      'users/tokens': ['last_used'],
    },
  },
  {
    why: 'every model with timestamps filters created and last_updated (docs/filtering.md); NetBox\'s filter sets for these are not change-logged ones',
    on: {
      'dcim/cable-terminations': ['created', 'last_updated'], 'extras/custom-fields': ['created', 'last_updated'], 'users/tokens': ['last_updated'],
      ...Object.fromEntries(['extras/custom-field-choice-sets', 'extras/custom-links', 'extras/export-templates', 'extras/saved-filters', 'extras/config-templates'].map((e) => [e, ['created', 'last_updated']])),
      'extras/image-attachments': ['last_updated'],
      'extras/journal-entries': ['created'],
    },
  },
  {
    why: 'every date and time filter takes all of n, lt, lte, gt, gte and empty (docs/filtering.md); NetBox\'s token filters declare exact, gte and lte only, its bookmark and image attachment filters exact only',
    on: {
      'extras/image-attachments': ['created__n', 'created__lt', 'created__lte', 'created__gt', 'created__gte', 'created__empty'],
      'users/tokens': ['created__n', 'created__lt', 'created__gt', 'created__empty', 'expires__n', 'expires__lt', 'expires__gt', 'expires__empty'],
      'extras/bookmarks': ['created__n', 'created__lt', 'created__lte', 'created__gt', 'created__gte', 'created__empty'],
    },
  },
  {
    why: 'every foreign key gives <field>_id and <field> by the target\'s natural key (docs/filtering.md, "Relations"); NetBox declares one of them, or neither',
    on: {
      'circuits/circuits': ['provider_account'],
      'circuits/circuit-terminations': ['circuit', 'provider_network'],
      'dcim/cable-terminations': ['cable_id'],
      'dcim/interfaces': ['parent', 'bridge', 'lag', 'untagged_vlan', 'untagged_vlan_id'],
      'virtualization/interfaces': ['parent', 'bridge', 'untagged_vlan', 'untagged_vlan_id'],
      'ipam/ip-addresses': ['nat_inside_id'],
      'ipam/prefixes': ['vlan'],
      'tenancy/contact-assignments': ['contact'],
      'dcim/devices': ['location', 'rack', 'cluster', 'virtual_chassis', 'config_template'],
      'dcim/device-roles': ['config_template'],
      'dcim/platforms': ['config_template'],
      'virtualization/virtual-machines': ['config_template'],
      ...Object.fromEntries(['console-port-templates', 'console-server-port-templates', 'power-port-templates', 'rear-port-templates'].map((e) => [`dcim/${e}`, ['device_type', 'device_type_id', 'module_type', 'module_type_id']])),
      'dcim/interface-templates': ['device_type', 'device_type_id', 'module_type', 'module_type_id', 'bridge'],
      'dcim/front-port-templates': ['device_type', 'device_type_id', 'module_type', 'module_type_id', 'rear_port', 'rear_port_id'],
      'dcim/power-outlet-templates': ['device_type', 'device_type_id', 'module_type', 'module_type_id', 'power_port', 'power_port_id'],
      'dcim/device-bay-templates': ['device_type', 'device_type_id'],
      'dcim/module-bay-templates': ['device_type', 'device_type_id'],
      'dcim/inventory-item-templates': ['device_type', 'device_type_id', 'parent'],
      'dcim/inventory-items': ['parent'],
      'dcim/device-bays': ['installed_device', 'installed_device_id'],
      'dcim/front-ports': ['rear_port', 'rear_port_id'],
      'dcim/power-outlets': ['power_port', 'power_port_id'],
      'dcim/modules': ['device', 'module_bay'],
      'dcim/power-feeds': ['power_panel', 'rack'],
      'dcim/power-panels': ['location'],
      'dcim/rack-reservations': ['rack'],
    },
  },
  {
    why: 'a many-to-many field gives <field>_id and <field> under its own name (docs/filtering.md); NetBox names these filters in the singular (Patchbay declares those too) or has none',
    on: {
      'dcim/interfaces': ['tagged_vlans', 'tagged_vlans_id', 'vdcs', 'vdcs_id', 'wireless_lans', 'wireless_lans_id'],
      'virtualization/interfaces': ['tagged_vlans', 'tagged_vlans_id'],
      'users/users': ['groups', 'groups_id'],
      'users/permissions': ['groups', 'groups_id', 'users', 'users_id'],
    },
  },
  { why: 'a declared filter of a generic relation narrowed to one type takes n like other relation filters (docs/filtering.md, "Domain filters"); NetBox\'s scope filters take the bare name only', on: { 'ipam/vlan-groups': ['region__n', 'sitegroup__n', 'site__n', 'location__n', 'rack__n', 'clustergroup__n', 'cluster__n'] } },
  {
    why: 'a list of type labels takes the text lookups on every model (docs/filtering.md), as NetBox\'s content_types filters do; NetBox\'s tag and permission object_types filters are exact only',
    on: Object.fromEntries(['extras/tags', 'users/permissions'].map((e) => [e, ['object_types__ic', 'object_types__nic', 'object_types__isw', 'object_types__nisw', 'object_types__iew', 'object_types__niew', 'object_types__ie', 'object_types__nie']])),
  },
  {
    why: 'a config context\'s assignment fields take NetBox\'s singular filter names (filter_name), each with <name> by natural key and <name>_id; NetBox has only the id filter for device types and clusters',
    on: { 'extras/config-contexts': ['device_type', 'cluster'] },
  },
  {
    why: 'a generic relation is filtered by its type and its id under the names the object shows (docs/filtering.md, "Generic relations"); NetBox has neither on IP addresses',
    on: { 'ipam/ip-addresses': ['assigned_object_type', 'assigned_object_id'] },
  },
  {
    why: 'lookups of the field\'s kind (docs/filtering.md): a network or an address also takes n and empty, text and MAC addresses every text lookup and empty; NetBox\'s filters for these declare fewer',
    on: {
      'ipam/aggregates': ['prefix__n', 'prefix__empty'],
      'ipam/prefixes': ['prefix__n', 'prefix__empty'],
      'ipam/ip-addresses': ['address__n', 'address__empty'],
      'dcim/cables': ['color__ic', 'color__nic', 'color__isw', 'color__nisw', 'color__iew', 'color__niew', 'color__ie', 'color__nie', 'color__empty'],
      'dcim/interfaces': ['mac_address__empty', 'wwn__empty'],
      'virtualization/interfaces': ['mac_address__empty'],
      'extras/custom-links': ['link_text__empty', 'link_url__empty'],
    },
  },
  {
    why: 'content types filter like every model, each field with the lookups of its kind (docs/filtering.md); NetBox\'s ContentTypeFilterSet is a plain django-filter set, exact only',
    on: {
      'extras/content-types': [
        ...['n', 'lt', 'lte', 'gt', 'gte', 'empty'].map((l) => `id__${l}`),
        ...['app_label', 'model'].flatMap((f) => ['n', 'ic', 'nic', 'isw', 'nisw', 'iew', 'niew', 'ie', 'nie', 'empty'].map((l) => `${f}__${l}`)),
      ],
    },
  },
  {
    why: 'declared filters through a relation take n like other relation filters, and a declared field filter takes the lookups of its field\'s kind (docs/filtering.md, "Domain filters"); NetBox\'s method filters take the bare name only',
    on: {
      'ipam/prefixes': ['present_in_vrf__n', 'present_in_vrf_id__n'],
      'ipam/ip-addresses': [
        'present_in_vrf__n', 'present_in_vrf_id__n', 'device__n', 'device_id__n', 'virtual_machine__n', 'virtual_machine_id__n',
        'interface__ic', 'interface__nic', 'interface__isw', 'interface__nisw', 'interface__iew', 'interface__niew', 'interface__ie', 'interface__nie', 'interface__empty',
        'vminterface__ic', 'vminterface__nic', 'vminterface__isw', 'vminterface__nisw', 'vminterface__iew', 'vminterface__niew', 'vminterface__ie', 'vminterface__nie', 'vminterface__empty',
      ],
      'dcim/cables': [
        'termination_a_id__n', 'termination_b_id__n', 'interface_id__n', 'circuittermination_id__n', 'consoleport_id__n', 'consoleserverport_id__n', 'powerport_id__n', 'poweroutlet_id__n', 'frontport_id__n', 'rearport_id__n', 'powerfeed_id__n', 'device__n', 'device_id__n',
        'rack__n', 'rack_id__n', 'location__n', 'location_id__n', 'site__n', 'site_id__n',
      ],
      'dcim/interfaces': ['vlan_id__n'],
      'virtualization/interfaces': ['vlan_id__n'],
      'extras/tags': ['for_object_type_id__n'],
    },
  },
];

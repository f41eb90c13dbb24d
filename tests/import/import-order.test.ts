import path from 'node:path';
import { loadRegistry } from '../../engine/boot';
import { importOrder, importedModels, selfReferencesFirst } from '../../engine/import/import-order';
import type { FkField, Registry, ResolvedModel } from '../../engine/definitions/registry-types';

/** The import order comes from the definitions' relations alone (engine/import/import-order.ts). */
const registry = loadRegistry(path.join(__dirname, '../../schema'));
const steps = importOrder(registry, importedModels(registry, true));
const position = new Map(steps.map((s, i) => [s.model.label, i]));
const step = (label: string) => steps.find((s) => s.model.label === label)!;

describe('import order', () => {
  test('every served writable type is imported once, the change log only when asked', () => {
    const labels = steps.map((s) => s.model.label);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels).toContain('extras.objectchange');
    expect(importedModels(registry, false).map((m) => m.label)).not.toContain('extras.objectchange');
    // Read-only catalogues and delivery state are not carried.
    expect(labels).not.toContain('extras.contenttype');
    expect(labels).not.toContain('extras.eventdelivery');
  });

  test('a type comes after every type its required relations point at', () => {
    for (const s of steps) {
      for (const f of s.model.fieldList) {
        if (f.readOnly || f.kind !== 'fk' || !f.required || f.nullable || f.target === s.model || !position.has(f.target.label)) continue;
        expect([s.model.label, f.name, position.get(f.target.label)! < position.get(s.model.label)!]).toEqual([s.model.label, f.name, true]);
      }
    }
  });

  test('relation cycles are broken by the second pass, with nothing deferred that could be written at once', () => {
    expect([...step('dcim.device').deferred.keys()].sort()).toEqual(['oob_ip', 'primary_ip4', 'primary_ip6']);
    // An address on a device interface is written with it; one on a VM interface (written later) waits.
    expect(step('ipam.ipaddress').deferred.get('assigned_object')).toEqual(new Set(['virtualization.vminterface']));
    // ...and so does the VM's primary address, which must be assigned to the VM when set.
    expect([...step('virtualization.virtualmachine').deferred.keys()].sort()).toEqual(['primary_ip4', 'primary_ip6']);
    expect(position.get('dcim.interface')!).toBeLessThan(position.get('ipam.ipaddress')!);
    // A cable's terminations are a type of their own, written after the ports they name.
    expect(position.get('dcim.cabletermination')!).toBeGreaterThan(position.get('dcim.interface')!);
    expect(position.get('dcim.cabletermination')!).toBeGreaterThan(position.get('dcim.cable')!);
    // Custom field definitions come before any type that holds values of them.
    expect(position.get('extras.customfield')!).toBeLessThan(position.get('dcim.site')!);
  });

  test('trees are written parents first, whatever their ids', () => {
    const region = registry.models.get('dcim.region')!;
    const s = step('dcim.region');
    expect(s.selfFields.map((f) => f.name)).toEqual(['parent']);
    const objects = [
      { id: 1, parent: { id: 3 } },
      { id: 2, parent: null },
      { id: 3, parent: { id: 2 } },
      { id: 4, parent: { id: 1 } },
    ];
    const { ordered, cyclic } = selfReferencesFirst(region, objects, s.selfFields);
    expect(ordered.map((o) => o.id)).toEqual([2, 3, 1, 4]);
    expect(cyclic.size).toBe(0);
    const loop = selfReferencesFirst(region, [{ id: 1, parent: { id: 2 } }, { id: 2, parent: { id: 1 } }], s.selfFields);
    expect(loop.ordered).toHaveLength(2);
    expect(loop.cyclic.size).toBe(1);
  });

  test('a cycle of required relations is refused with the types named', () => {
    const site = registry.models.get('dcim.site')!;
    const region = registry.models.get('dcim.region')!;
    const fake = { ...registry, roles: new Map() } as Registry;
    const regionOfSite = site.fields.get('region') as FkField;
    const s2: ResolvedModel = { ...site };
    const r2: ResolvedModel = { ...region };
    s2.fieldList = [{ ...regionOfSite, required: true, nullable: false, target: r2 }];
    r2.fieldList = [{ ...regionOfSite, name: 'site', model: r2, required: true, nullable: false, target: s2 }];
    expect(() => importOrder(fake, [s2, r2])).toThrow(/cycle of required relations among dcim\.(site|region), dcim\.(site|region)/);
  });
});

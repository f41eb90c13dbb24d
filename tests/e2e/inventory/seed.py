#!/usr/bin/python3
"""Seeds the small, known world that tests/e2e/inventory/check.py reads back through Ansible's
netbox.netbox.nb_inventory plugin (run.sh runs both, after the other e2e scripts).

Everything belongs to the tenant `inv-e2e`, and the inventory asks for that tenant only, so the
objects other e2e scripts leave behind (devices with primary IPs, a global config context) cannot
change which hosts the inventory holds. Names start with `inv-` so nothing collides with them.

    NETBOX_URL=http://localhost:8000 NETBOX_TOKEN=<40 hex> /usr/bin/python3 tests/e2e/inventory/seed.py

A request the server refuses stops the script with its status and body (exit 1). It first removes
what an earlier seed left (by its tenant and names), so it runs on a database that holds one: a kept one,
or one imported from a server it ran on (tests/import/e2e-on-imported-target.sh).
"""
import os
import sys

import pynetbox

URL = os.environ.get("NETBOX_URL", "http://localhost:8000")
TOKEN = os.environ.get("NETBOX_TOKEN", "")

nb = pynetbox.api(URL, token=TOKEN)


def clean():
    """Removes an earlier seed's world, children before parents."""
    def delete_all(endpoint, **filters):
        for obj in list(endpoint.filter(**filters)):
            obj.delete()

    for name in ("inv-base", "inv-ams", "inv-spine"):
        delete_all(nb.extras.config_contexts, name=name)
    for tenant in nb.tenancy.tenants.filter(slug="inv-e2e"):
        for vm in nb.virtualization.virtual_machines.filter(tenant_id=tenant.id):
            delete_all(nb.ipam.services, virtual_machine_id=vm.id)
            vm.delete()  # with its interfaces and their addresses
        for device in nb.dcim.devices.filter(tenant_id=tenant.id):
            delete_all(nb.ipam.services, device_id=device.id)
            device.delete()
        for ep in (nb.ipam.ip_addresses, nb.ipam.prefixes, nb.virtualization.clusters, nb.dcim.racks, nb.dcim.sites):
            delete_all(ep, tenant_id=tenant.id)
        tenant.delete()
    for ep, slugs in ((nb.virtualization.cluster_types, ["inv-kvm"]), (nb.dcim.platforms, ["inv-eos", "inv-linux"]),
                      (nb.dcim.device_roles, ["inv-leaf", "inv-spine", "inv-app"]), (nb.dcim.device_types, ["inv-box"]),
                      (nb.dcim.manufacturers, ["inv-maker"]), (nb.extras.tags, ["inv-prod", "inv-edge"])):
        for slug in slugs:
            delete_all(ep, slug=slug)


def main():
    clean()
    tenant = nb.tenancy.tenants.create(name="inv-e2e", slug="inv-e2e")
    ams = nb.dcim.sites.create(name="inv-ams", slug="inv-ams", status="active", tenant=tenant.id, facility="AMS-1", time_zone="Europe/Amsterdam")
    fra = nb.dcim.sites.create(name="inv-fra", slug="inv-fra", status="active", tenant=tenant.id)
    rack_ams = nb.dcim.racks.create(name="inv-ams-r1", site=ams.id, tenant=tenant.id)
    rack_fra = nb.dcim.racks.create(name="inv-fra-r1", site=fra.id, tenant=tenant.id)
    maker = nb.dcim.manufacturers.create(name="inv-maker", slug="inv-maker")
    dtype = nb.dcim.device_types.create(manufacturer=maker.id, model="inv-box", slug="inv-box")
    leaf = nb.dcim.device_roles.create(name="inv-leaf", slug="inv-leaf", color="00ff00")
    spine = nb.dcim.device_roles.create(name="inv-spine", slug="inv-spine", color="0000ff")
    app = nb.dcim.device_roles.create(name="inv-app", slug="inv-app", color="ff0000", vm_role=True)
    eos = nb.dcim.platforms.create(name="inv-eos", slug="inv-eos", manufacturer=maker.id)
    linux = nb.dcim.platforms.create(name="inv-linux", slug="inv-linux")
    prod = nb.extras.tags.create(name="inv-prod", slug="inv-prod")
    edge = nb.extras.tags.create(name="inv-edge", slug="inv-edge")

    def device(name, site, rack, role, platform, tags, local=None):
        return nb.dcim.devices.create(
            name=name, device_type=dtype.id, role=role.id, site=site.id, rack=rack.id, platform=platform.id if platform else None,
            tenant=tenant.id, status="active", tags=[{"slug": t.slug} for t in tags], local_context_data=local,
        )

    def address(addr, iface, kind="dcim.interface", **more):
        return nb.ipam.ip_addresses.create(address=addr, assigned_object_type=kind, assigned_object_id=iface.id, tenant=tenant.id, status="active", **more)

    # inv-leaf1: both primary addresses (ansible_host is the IPv6 one, as NetBox's primary_ip prefers it),
    # an out-of-band address and local context data that overrides a context's value.
    leaf1 = device("inv-leaf1", ams, rack_ams, leaf, eos, [prod], local={"inv_dns": "10.50.1.53", "inv_local": True})
    l1_eth0 = nb.dcim.interfaces.create(device=leaf1.id, name="eth0", type="1000base-t", description="uplink", tags=[{"slug": "inv-edge"}])
    l1_mgmt = nb.dcim.interfaces.create(device=leaf1.id, name="mgmt0", type="1000base-t", mgmt_only=True)
    nb.dcim.interfaces.create(device=leaf1.id, name="eth1", type="1000base-t", enabled=False)
    ip4 = address("10.50.1.1/24", l1_eth0, dns_name="leaf1.inv.example")
    ip6 = address("2001:db8:50::1/64", l1_eth0)
    oob = address("10.59.0.1/24", l1_mgmt)
    leaf1.update({"primary_ip4": ip4.id, "primary_ip6": ip6.id, "oob_ip": oob.id})

    # inv-spine1: an IPv4 primary address only, two tags.
    spine1 = device("inv-spine1", fra, rack_fra, spine, eos, [prod, edge])
    s1_eth0 = nb.dcim.interfaces.create(device=spine1.id, name="eth0", type="10gbase-x-sfpp")
    s1_ip = address("10.51.0.1/16", s1_eth0)
    spine1.update({"primary_ip4": s1_ip.id})

    # inv-leaf2: an address on an interface but no primary address: has_primary_ip=true leaves it out.
    leaf2 = device("inv-leaf2", ams, rack_ams, leaf, None, [])
    l2_eth0 = nb.dcim.interfaces.create(device=leaf2.id, name="eth0", type="1000base-t")
    address("10.50.1.2/24", l2_eth0)

    nb.ipam.services.create(device=leaf1.id, name="ssh", protocol="tcp", ports=[22], description="management")
    nb.ipam.services.create(device=spine1.id, name="bgp", protocol="tcp", ports=[179])
    nb.ipam.services.create(device=leaf2.id, name="ssh", protocol="tcp", ports=[22])

    nb.ipam.prefixes.create(prefix="10.50.1.0/24", site=ams.id, tenant=tenant.id, status="active")
    nb.ipam.prefixes.create(prefix="2001:db8:50::/64", site=ams.id, tenant=tenant.id, status="active")
    nb.ipam.prefixes.create(prefix="10.51.0.0/16", site=fra.id, tenant=tenant.id, status="reserved")
    nb.ipam.prefixes.create(prefix="10.59.0.0/24", tenant=tenant.id, status="active")  # no site: in no host's site data

    ctype = nb.virtualization.cluster_types.create(name="inv-kvm", slug="inv-kvm")
    cluster = nb.virtualization.clusters.create(name="inv-cluster1", type=ctype.id, site=ams.id, tenant=tenant.id, status="active")
    # A VM takes its cluster's site when given none (NetBox's VirtualMachine.clean): inv-vm2's cluster has none.
    cluster2 = nb.virtualization.clusters.create(name="inv-cluster2", type=ctype.id, tenant=tenant.id, status="active")

    # inv-vm1: a site, a role, a platform, a tag, an IPv4 primary address; inv-vm2: an IPv6 one and no site;
    # inv-vm3: no primary address, left out.
    vm1 = nb.virtualization.virtual_machines.create(name="inv-vm1", cluster=cluster.id, site=ams.id, role=app.id, platform=linux.id, tenant=tenant.id,
                                                    status="active", vcpus=2, memory=2048, disk=20, tags=[{"slug": "inv-edge"}])
    vm1_eth0 = nb.virtualization.interfaces.create(virtual_machine=vm1.id, name="eth0")
    vm1_ip = address("10.50.1.10/24", vm1_eth0, kind="virtualization.vminterface")
    vm1.update({"primary_ip4": vm1_ip.id})
    vm2 = nb.virtualization.virtual_machines.create(name="inv-vm2", cluster=cluster2.id, tenant=tenant.id, status="planned")
    vm2_eth0 = nb.virtualization.interfaces.create(virtual_machine=vm2.id, name="ens3")
    vm2_ip = address("2001:db8:50::10/64", vm2_eth0, kind="virtualization.vminterface")
    vm2.update({"primary_ip6": vm2_ip.id})
    nb.virtualization.virtual_machines.create(name="inv-vm3", cluster=cluster.id, tenant=tenant.id)
    nb.ipam.services.create(virtual_machine=vm1.id, name="web", protocol="tcp", ports=[80, 443])

    # Config contexts: one for the whole tenant, one for a site that overrides it (higher weight),
    # one for a role; leaf1's local context data wins over all of them.
    nb.extras.config_contexts.create(name="inv-base", weight=1000, tenants=[tenant.id], data={"inv_ntp": ["10.50.0.123"], "inv_dns": "10.50.0.53", "inv_site": "none"})
    nb.extras.config_contexts.create(name="inv-ams", weight=2000, sites=[ams.id], data={"inv_site": "ams", "inv_syslog": "10.50.1.250"})
    nb.extras.config_contexts.create(name="inv-spine", weight=1000, roles=[spine.id], data={"inv_bgp": {"asn": 65001}})
    print("inventory world seeded: 3 devices, 3 virtual machines, 2 sites")


if __name__ == "__main__":
    try:
        main()
    except pynetbox.RequestError as e:
        print("FAIL: %s %s -> %s %s" % (e.req.request.method, e.req.url, e.req.status_code, e.error))
        sys.exit(1)

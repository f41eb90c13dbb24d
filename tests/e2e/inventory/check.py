#!/usr/bin/python3
"""Checks what Ansible's netbox.netbox.nb_inventory plugin made of the world tests/e2e/inventory/seed.py
seeded: `ansible-inventory --list` output (a JSON file, the first argument) against the known world
(hosts, groups, their members, hostvars) and against what the API itself serves for the nested objects
(interfaces with their IP addresses, services, sites with their prefixes), field for field.

    NETBOX_URL=... NETBOX_TOKEN=... /usr/bin/python3 tests/e2e/inventory/check.py inventory.json

Every mismatch is printed as `FAIL: ...`; the exit status is 1 if anything failed.
"""
import json
import os
import sys

import requests

URL = os.environ.get("NETBOX_URL", "http://localhost:8000").rstrip("/")
TOKEN = os.environ.get("NETBOX_TOKEN", "")
http = requests.Session()
http.headers.update({"Authorization": "Token " + TOKEN, "Accept": "application/json"})

failures = []


def eq(actual, expected, what):
    if actual != expected:
        failures.append(what)
        print("FAIL: %s:\n  expected %s\n  got      %s" % (what, json.dumps(expected, sort_keys=True), json.dumps(actual, sort_keys=True)))


def every(path):
    """Every object of a list, page after page, in the order the API gives (as the plugin reads them)."""
    out, url = [], URL + path
    while url:
        r = http.get(url)
        r.raise_for_status()
        body = r.json()
        out.extend(body["results"])
        url = body["next"]
    return out


# The hosts: devices and VMs of the tenant with a primary address (has_primary_ip=true leaves inv-leaf2 and inv-vm3 out).
HOSTS = ["inv-leaf1", "inv-spine1", "inv-vm1", "inv-vm2"]

# Every group holding a host, with its members. sites_* groups exist for every site (the plugin makes one
# per site); the other e2e scripts' sites give empty ones, checked below.
GROUPS = {
    "sites_inv-ams": ["inv-leaf1", "inv-vm1"],
    "sites_inv-fra": ["inv-spine1"],
    "device_roles_inv-leaf": ["inv-leaf1"],
    "device_roles_inv-spine": ["inv-spine1"],
    "device_roles_inv-app": ["inv-vm1"],
    "platforms_inv-eos": ["inv-leaf1", "inv-spine1"],
    "platforms_inv-linux": ["inv-vm1"],
    "tags_inv-prod": ["inv-leaf1", "inv-spine1"],
    "tags_inv-edge": ["inv-spine1", "inv-vm1"],
    "racks_inv-ams-r1": ["inv-leaf1"],
    "racks_inv-fra-r1": ["inv-spine1"],
    "cluster_inv-cluster1": ["inv-vm1"],
    "cluster_inv-cluster2": ["inv-vm2"],
}

ACTIVE = {"value": "active", "label": "Active"}
NOWHERE = {"regions": [], "site_groups": [], "locations": [], "custom_fields": {}, "tenants": ["inv-e2e"]}
DEVICE = {**NOWHERE, "is_virtual": False, "serial": "", "device_types": ["inv-box"], "manufacturers": ["inv-maker"], "status": ACTIVE}
VM = {**NOWHERE, "is_virtual": True, "cluster": "inv-cluster1", "cluster_type": "inv-kvm"}
BASE = {"inv_ntp": ["10.50.0.123"], "inv_dns": "10.50.0.53", "inv_site": "none"}
AMS = {"inv_site": "ams", "inv_syslog": "10.50.1.250"}

# Scalar hostvars, exactly; interfaces, services and sites are compared separately.
HOSTVARS = {
    "inv-leaf1": {
        **DEVICE, "ansible_host": "2001:db8:50::1", "primary_ip4": "10.50.1.1", "primary_ip6": "2001:db8:50::1",
        "device_roles": ["inv-leaf"], "platforms": ["inv-eos"], "racks": ["inv-ams-r1"], "tags": ["inv-prod"],
        # local context data wins over the contexts, the site's context (weight 2000) over the tenant's
        "config_context": [{**BASE, **AMS, "inv_dns": "10.50.1.53", "inv_local": True}],
        "local_context_data": [{"inv_dns": "10.50.1.53", "inv_local": True}],
    },
    "inv-spine1": {
        **DEVICE, "ansible_host": "10.51.0.1", "primary_ip4": "10.51.0.1",
        "device_roles": ["inv-spine"], "platforms": ["inv-eos"], "racks": ["inv-fra-r1"], "tags": ["inv-edge", "inv-prod"],
        "config_context": [{**BASE, "inv_bgp": {"asn": 65001}}], "local_context_data": [None],
    },
    "inv-vm1": {
        **VM, "ansible_host": "10.50.1.10", "primary_ip4": "10.50.1.10", "status": ACTIVE, "vcpus": 2, "memory": 2048, "disk": 20,
        "device_roles": ["inv-app"], "platforms": ["inv-linux"], "tags": ["inv-edge"],
        "config_context": [{**BASE, **AMS}], "local_context_data": [None],
    },
    "inv-vm2": {
        **VM, "cluster": "inv-cluster2", "ansible_host": "2001:db8:50::10", "primary_ip6": "2001:db8:50::10", "status": {"value": "planned", "label": "Planned"},
        "tags": [], "config_context": [BASE], "local_context_data": [None],
    },
}

# Interface names with their addresses, services (name, ports) and site prefixes, as seeded.
INTERFACES = {
    "inv-leaf1": {"eth0": ["10.50.1.1/24", "2001:db8:50::1/64"], "eth1": [], "mgmt0": ["10.59.0.1/24"]},
    "inv-spine1": {"eth0": ["10.51.0.1/16"]},
    "inv-vm1": {"eth0": ["10.50.1.10/24"]},
    "inv-vm2": {"ens3": ["2001:db8:50::10/64"]},
}
SERVICES = {"inv-leaf1": [["ssh", [22]]], "inv-spine1": [["bgp", [179]]], "inv-vm1": [["web", [80, 443]]], "inv-vm2": []}
SITE = {"inv-leaf1": "inv-ams", "inv-spine1": "inv-fra", "inv-vm1": "inv-ams", "inv-vm2": None}
PREFIXES = {"inv-ams": ["10.50.1.0/24", "2001:db8:50::/64"], "inv-fra": ["10.51.0.0/16"]}


def api_world():
    """The API's own objects, shaped as the plugin shapes them, by host name."""
    devices = {d["name"]: d for d in every("/api/dcim/devices/?tenant=inv-e2e&limit=0")}
    vms = {v["name"]: v for v in every("/api/virtualization/virtual-machines/?tenant=inv-e2e&limit=0")}
    ips = every("/api/ipam/ip-addresses/?tenant=inv-e2e&limit=0&assigned_to_interface=true")
    services = every("/api/ipam/services/?limit=0")
    prefixes = every("/api/ipam/prefixes/?limit=0")
    sites = {s["slug"]: s for s in every("/api/dcim/sites/?limit=0")}

    def shaped_ip(ip):
        return {k: v for k, v in ip.items() if k not in ("assigned_object", "assigned_object_id", "assigned_object_type")}

    out = {}
    for name in HOSTS:
        virtual = name.startswith("inv-vm")
        host = vms[name] if virtual else devices[name]
        kind = "virtualization.vminterface" if virtual else "dcim.interface"
        path = "/api/virtualization/interfaces/?virtual_machine_id=%d&limit=0" if virtual else "/api/dcim/interfaces/?device_id=%d&limit=0"
        interfaces = []
        for iface in every(path % host["id"]):
            iface = dict(iface, tags=[t["slug"] for t in iface["tags"]])
            iface["ip_addresses"] = [shaped_ip(ip) for ip in ips if ip["assigned_object_type"] == kind and ip["assigned_object_id"] == iface["id"]]
            interfaces.append(iface)
        owner = "virtual_machine" if virtual else "device"
        mine = [s for s in services if (s.get(owner) or {}).get("id") == host["id"]]
        site = None
        if SITE[name]:
            site = dict(sites[SITE[name]])
            site["prefixes"] = [{k: v for k, v in p.items() if k != "site"} for p in prefixes if (p.get("site") or {}).get("id") == site["id"]]
        out[name] = {"interfaces": interfaces, "services": mine, "sites": [site] if site else None}
    return out, sites


def main():
    inventory = json.load(open(sys.argv[1]))
    hostvars = inventory.get("_meta", {}).get("hostvars", {})
    eq(sorted(hostvars), HOSTS, "hosts with hostvars")

    groups = {g: sorted(v.get("hosts", [])) for g, v in inventory.items() if g not in ("_meta", "all")}
    eq({g: m for g, m in groups.items() if m}, GROUPS, "groups holding hosts, with their members")
    world, sites = api_world()
    # --list leaves empty groups out of the top level; all's children names them.
    children = inventory.get("all", {}).get("children", [])
    empty = sorted(g for g in children if not groups.get(g) and g != "ungrouped")
    eq(empty, sorted("sites_" + slug for slug in sites if "sites_" + slug not in GROUPS), "empty groups: one per site without an inventory host")
    eq(sorted(children), sorted(["ungrouped", *GROUPS, *empty]), "all's children")

    for name in HOSTS:
        got = hostvars.get(name, {})
        scalar = {k: v for k, v in got.items() if k not in ("interfaces", "services", "sites")}
        eq(scalar, HOSTVARS[name], "%s hostvars" % name)
        interfaces = got.get("interfaces") or []
        eq({i.get("name"): [ip.get("address") for ip in i.get("ip_addresses", [])] for i in interfaces}, INTERFACES[name], "%s interfaces and their addresses" % name)
        eq(interfaces, world[name]["interfaces"], "%s interfaces as the API serves them" % name)
        eq([[s.get("name"), s.get("ports")] for s in got.get("services", [])], SERVICES[name], "%s services" % name)
        eq(got.get("services"), world[name]["services"], "%s services as the API serves them" % name)
        if SITE[name] is None:
            eq("sites" in got, False, "%s has no site data" % name)
            continue
        eq([(s.get("slug"), [p.get("prefix") for p in s.get("prefixes", [])]) for s in got.get("sites", [])], [(SITE[name], PREFIXES[SITE[name]])], "%s site and its prefixes" % name)
        eq(got.get("sites"), world[name]["sites"], "%s site data as the API serves it" % name)

    if failures:
        print("inventory: %d failure(s)" % len(failures))
        sys.exit(1)
    print("inventory: %d hosts and %d groups as expected" % (len(HOSTS), len(GROUPS)))


if __name__ == "__main__":
    main()

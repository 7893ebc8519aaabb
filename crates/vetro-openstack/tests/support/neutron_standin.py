"""A small Neutron (networking API v2.0) stand-in for the OpenStack backend's tests.

Neutron itself cannot run on the test machine, so this HTTP server answers the
part of the Neutron API reference that vetro's network explorer uses, with
Neutron's request and response shapes, against the real Keystone:

- every request under /v2.0 needs an X-Auth-Token that Keystone validates
  for the stand-in's own admin token, as keystonemiddleware validates with a
  service token (a trust-scoped token may not validate itself); the token's project
  owns what it creates and sees only its own resources, shared and external
  networks and their subnets (admins see everything);
- GET /v2.0/{networks,subnets,ports,routers} with Neutron's query filters
  (repeated keys are alternatives), GET /v2.0/{kind}/{id}, GET /v2.0/extensions;
- POST /v2.0/{networks,subnets,routers} (a router with an external gateway gets
  its gateway port, owned by no project, an address on the external subnet);
- PUT /v2.0/routers/{id}/add_router_interface (the interface port takes the
  subnet's gateway address); DELETE /v2.0/{kind}/{id}.

The state lives in memory and starts with one external network, `public`,
with the subnet 172.24.4.0/24.

Usage:
  python neutron_standin.py serve --bind 127.0.0.1:PORT --keystone URL/v3 --password ADMIN_PW
  python neutron_standin.py register --keystone URL/v3 --password ADMIN_PW --url http://127.0.0.1:PORT
"""
import argparse
import ipaddress
import json
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

KINDS = {"networks": "network", "subnets": "subnet", "ports": "port", "routers": "router"}
NOT_FOUND = {"networks": "NetworkNotFound", "subnets": "SubnetNotFound",
             "ports": "PortNotFound", "routers": "RouterNotFound"}
EXTENSIONS = [
    ("security-group", "security-group", "The security groups extension."),
    ("router", "Neutron L3 Router", "Router abstraction for layer 3 forwarding."),
    ("external-net", "Neutron external network", "Adds external network attribute."),
    ("port-security", "Port Security", "Provides port security."),
    ("quotas", "Quota management support", "Expose functions for quotas management."),
]
ADMIN_PROJECT = "standin-admin-project"
TOKEN_CACHE_SECONDS = 30


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.items = {kind: {} for kind in KINDS}
        net = self.add("networks", ADMIN_PROJECT, {"name": "public", "router:external": True, "shared": False})
        self.add("subnets", ADMIN_PROJECT, {"name": "public-subnet", "network_id": net["id"],
                                             "cidr": "172.24.4.0/24"})

    def add(self, kind, project, body):
        item = {"id": str(uuid.uuid4()), "name": body.get("name", ""), "tenant_id": project,
                "project_id": project, "description": body.get("description", ""),
                "created_at": now(), "updated_at": now(), "admin_state_up": body.get("admin_state_up", True)}
        if kind == "networks":
            item.update({"status": "ACTIVE", "subnets": [], "shared": bool(body.get("shared", False)),
                         "router:external": bool(body.get("router:external", False)), "mtu": 1500,
                         "port_security_enabled": True})
        elif kind == "subnets":
            net = self.items["networks"].get(body.get("network_id"))
            if net is None:
                raise ApiError(404, "NetworkNotFound", "Network %s could not be found." % body.get("network_id"))
            cidr = ipaddress.ip_network(body["cidr"], strict=False)
            hosts = list(cidr.hosts())
            gateway = body.get("gateway_ip", str(hosts[0]))
            item.update({"network_id": net["id"], "cidr": str(cidr), "ip_version": cidr.version,
                         "gateway_ip": gateway, "enable_dhcp": body.get("enable_dhcp", True),
                         "dns_nameservers": body.get("dns_nameservers", []), "host_routes": [],
                         "allocation_pools": [{"start": str(hosts[1]), "end": str(hosts[-1])}]})
            net["subnets"].append(item["id"])
        elif kind == "ports":
            item.update({"status": "ACTIVE", "network_id": body["network_id"],
                         "device_id": body.get("device_id", ""), "device_owner": body.get("device_owner", ""),
                         "fixed_ips": body.get("fixed_ips", []),
                         "mac_address": "fa:16:3e:%02x:%02x:%02x" % tuple(uuid.uuid4().bytes[:3])})
        elif kind == "routers":
            item.update({"status": "ACTIVE", "routes": [], "external_gateway_info": None})
        if kind == "routers" and body.get("external_gateway_info"):
            self.set_gateway(item, body["external_gateway_info"])
        self.items[kind][item["id"]] = item
        return item

    def free_address(self, subnet):
        used = {ip["ip_address"] for p in self.items["ports"].values() for ip in p["fixed_ips"]
                if ip["subnet_id"] == subnet["id"]}
        used.add(subnet["gateway_ip"])
        pool = subnet["allocation_pools"][0]
        addr = ipaddress.ip_address(pool["start"])
        while str(addr) in used:
            addr += 1
        return str(addr)

    def set_gateway(self, router, info):
        net = self.items["networks"].get(info.get("network_id"))
        if net is None or not net["router:external"]:
            raise ApiError(400, "BadRequest", "Network %s is not an external network" % info.get("network_id"))
        subnet = self.items["subnets"][net["subnets"][0]]
        port = self.add("ports", "", {"network_id": net["id"], "device_id": router["id"],
                                      "device_owner": "network:router_gateway",
                                      "fixed_ips": [{"subnet_id": subnet["id"], "ip_address": self.free_address(subnet)}]})
        router["external_gateway_info"] = {"network_id": net["id"], "enable_snat": True,
                                           "external_fixed_ips": port["fixed_ips"]}

    def add_interface(self, router, subnet_id, project):
        subnet = self.items["subnets"].get(subnet_id)
        if subnet is None:
            raise ApiError(404, "SubnetNotFound", "Subnet %s could not be found." % subnet_id)
        fixed = [{"subnet_id": subnet_id, "ip_address": subnet["gateway_ip"]}]
        port = self.add("ports", project, {"network_id": subnet["network_id"], "device_id": router["id"],
                                           "device_owner": "network:router_interface", "fixed_ips": fixed})
        return {"id": router["id"], "subnet_id": subnet_id, "subnet_ids": [subnet_id], "port_id": port["id"],
                "tenant_id": project, "project_id": project, "network_id": subnet["network_id"]}

    def visible(self, kind, item, who):
        if who["admin"] or item["project_id"] == who["project"]:
            return True
        if kind == "networks":
            return item["shared"] or item["router:external"]
        if kind == "subnets":
            net = self.items["networks"].get(item["network_id"], {})
            return net.get("shared") or net.get("router:external")
        return False


class ApiError(Exception):
    def __init__(self, status, kind, message):
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message


def matches(item, filters):
    for key, wanted in filters.items():
        value = item.get(key)
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if not any(text == (w.lower() if isinstance(value, bool) else w) for w in wanted):
            return False
    return True


class Tokens:
    """Tokens validated by Keystone, remembered for a short while."""

    def __init__(self, keystone, password):
        self.keystone = keystone.rstrip("/")
        self.password = password
        self.service = None  # the stand-in's own token
        self.cache = {}
        self.lock = threading.Lock()

    def service_token(self, renew=False):
        with self.lock:
            if self.service is None or renew:
                self.service = admin_token(self.keystone, self.password)
            return self.service

    def identity(self, token):
        with self.lock:
            hit = self.cache.get(token)
        if hit and hit[0] > time.time():
            return hit[1]
        for renew in (False, True):
            req = urllib.request.Request(self.keystone + "/auth/tokens", headers={
                "X-Auth-Token": self.service_token(renew), "X-Subject-Token": token})
            try:
                with urllib.request.urlopen(req, timeout=30) as r:
                    body = json.loads(r.read())["token"]
                break
            except urllib.error.HTTPError as e:
                if e.code == 401 and not renew:
                    continue  # the stand-in's own token lapsed
                if e.code in (401, 403, 404):
                    return None
                raise
        who = {"project": body.get("project", {}).get("id"),
               "admin": any(r["name"] == "admin" for r in body.get("roles", []))}
        with self.lock:
            self.cache[token] = (time.time() + TOKEN_CACHE_SECONDS, who)
        return who


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state = None
    tokens = None

    def log_message(self, *args):
        pass

    def reply(self, status, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status == 401:
            self.send_header("WWW-Authenticate", 'Keystone uri="%s"' % self.tokens.keystone)
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            raise ApiError(400, "BadRequest", "The request body is not JSON")

    def handle_any(self, method):
        try:
            url = urllib.parse.urlsplit(self.path)
            parts = [p for p in url.path.split("/") if p]
            if method == "GET" and not parts:
                return self.reply(200, {"versions": [{"id": "v2.0", "status": "CURRENT", "links": [
                    {"rel": "self", "href": "http://%s/v2.0/" % self.headers.get("Host", "")}]}]})
            if not parts or parts[0] != "v2.0":
                raise ApiError(404, "HTTPNotFound", "The resource could not be found.")
            who = self.tokens.identity(self.headers.get("X-Auth-Token", ""))
            if who is None:
                return self.reply(401, {"error": {"code": 401, "title": "Unauthorized",
                                                  "message": "The request you have made requires authentication."}})
            filters = urllib.parse.parse_qs(url.query)
            for skip in ("fields", "sort_key", "sort_dir", "limit", "marker"):
                filters.pop(skip, None)
            with self.state.lock:
                status, body = self.route(method, parts[1:], filters, who)
            self.reply(status, body)
        except ApiError as e:
            self.reply(e.status, {"NeutronError": {"type": e.kind, "message": e.message, "detail": ""}})
        except (KeyError, ValueError, TypeError) as e:
            self.reply(400, {"NeutronError": {"type": "BadRequest", "message": "Bad request: %s" % e, "detail": ""}})

    def route(self, method, parts, filters, who):
        st = self.state
        if parts == ["extensions"] and method == "GET":
            return 200, {"extensions": [{"alias": a, "name": n, "description": d, "updated": "2013-01-01T00:00:00-00:00",
                                         "links": []} for a, n, d in EXTENSIONS]}
        if not parts or parts[0] not in KINDS:
            raise ApiError(404, "HTTPNotFound", "The resource could not be found.")
        kind, one = parts[0], KINDS[parts[0]]
        if len(parts) == 1 and method == "GET":
            found = [i for i in st.items[kind].values() if st.visible(kind, i, who) and matches(i, filters)]
            return 200, {kind: found}
        if len(parts) == 1 and method == "POST":
            body = self.body()[one]
            project = body.get("project_id") or body.get("tenant_id") or who["project"]
            if project != who["project"] and not who["admin"]:
                raise ApiError(403, "PolicyNotAuthorized", "Only an admin may create for another project")
            return 201, {one: st.add(kind, project, body)}
        item = st.items[kind].get(parts[1])
        if item is None or not st.visible(kind, item, who):
            raise ApiError(404, NOT_FOUND[kind], "%s %s could not be found." % (one.capitalize(), parts[1]))
        if len(parts) == 2 and method == "GET":
            return 200, {one: item}
        if len(parts) == 2 and method == "DELETE":
            del st.items[kind][item["id"]]
            for port in [p for p in st.items["ports"].values() if p["device_id"] == item["id"]]:
                del st.items["ports"][port["id"]]
            return 204, None
        if kind == "routers" and parts[2:] == ["add_router_interface"] and method == "PUT":
            return 200, st.add_interface(item, self.body().get("subnet_id"), who["project"])
        raise ApiError(404, "HTTPNotFound", "The resource could not be found.")

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_DELETE(self):
        self.handle_any("DELETE")


def keystone_call(url, method, body=None, token=None):
    req = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    if token:
        req.add_header("X-Auth-Token", token)
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.headers, json.loads(r.read() or b"null")


def admin_token(keystone, password):
    h, _ = keystone_call(keystone + "/auth/tokens", "POST", {"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "name": "admin", "domain": {"id": "default"}, "password": password}}},
        "scope": {"project": {"name": "admin", "domain": {"id": "default"}}}}})
    return h["X-Subject-Token"]


def register(keystone, password, url):
    """The `network` service and its endpoints in Keystone's catalog, once."""
    keystone = keystone.rstrip("/")
    tok = admin_token(keystone, password)
    services = keystone_call(keystone + "/services?type=network", "GET", token=tok)[1]["services"]
    if services:
        return
    svc = keystone_call(keystone + "/services", "POST",
                        {"service": {"type": "network", "name": "neutron"}}, tok)[1]["service"]["id"]
    for iface in ("public", "internal", "admin"):
        keystone_call(keystone + "/endpoints", "POST", {"endpoint": {
            "service_id": svc, "interface": iface, "region_id": "RegionOne", "url": url}}, tok)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["serve", "register"])
    parser.add_argument("--keystone", required=True)
    parser.add_argument("--bind", default="127.0.0.1:9696")
    parser.add_argument("--password", required=True, help="Keystone's admin password")
    parser.add_argument("--url")
    opts = parser.parse_args()
    if opts.command == "register":
        register(opts.keystone, opts.password, opts.url)
        return 0
    host, port = opts.bind.rsplit(":", 1)
    Handler.state = State()
    Handler.tokens = Tokens(opts.keystone, opts.password)
    server = ThreadingHTTPServer((host, int(port)), Handler)
    server.daemon_threads = True
    print("neutron stand-in listening on %s" % opts.bind, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())

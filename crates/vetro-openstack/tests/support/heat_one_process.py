"""Heat's API and engine in one process, for tests.

Heat 27 ships separate API and engine programs; with the in-process `fake://`
messaging transport they only reach each other inside one process. This runs
the engine service in a thread and serves the API with a threaded wsgiref
server on the same process.

Usage: python heat_one_process.py --config-file heat.conf --bind 127.0.0.1:PORT
"""
import argparse
import socketserver
import sys
from wsgiref import simple_server

from oslo_service import backend

backend.init_backend(backend.BackendType.THREADING)

from oslo_config import cfg  # noqa: E402
from oslo_log import log as logging  # noqa: E402

from heat.common import config, messaging  # noqa: E402
from heat.engine import service as engine  # noqa: E402  (registers its options)
from heat.rpc import api as rpc_api  # noqa: E402


class ThreadedServer(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True


class QuietHandler(simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config-file", required=True)
    parser.add_argument("--bind", default="127.0.0.1:8004")
    opts = parser.parse_args()
    host, port = opts.bind.rsplit(":", 1)
    logging.register_options(cfg.CONF)
    cfg.CONF(["--config-file", opts.config_file], project="heat", prog="heat-api")
    logging.setup(cfg.CONF, "heat")
    messaging.setup()
    config.startup_sanity_check()
    engine.EngineService(cfg.CONF.host, rpc_api.ENGINE_TOPIC).start()
    app = config.load_paste_app("heat-api")
    server = simple_server.make_server(
        host, int(port), app, server_class=ThreadedServer, handler_class=QuietHandler)
    print("heat listening on %s" % opts.bind, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())

"""A minimal MCP (JSON-RPC 2.0 over stdio) client for `tirx serve`."""
import itertools
import json
import os
import shutil
import subprocess


class HarnessError(Exception):
    """A JSON-RPC error from the harness; `data` holds the rejection."""

    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code = code
        self.data = data or {}


def find_tirx(explicit=None):
    """The tirx binary: explicit, $TIRX_BIN, the build tree, or PATH."""
    candidates = [explicit, os.environ.get("TIRX_BIN"),
                  os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin", "tirx"),
                  shutil.which("tirx")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    raise FileNotFoundError("tirx not found: build it (make build) or set TIRX_BIN")


class MCPClient:
    """Starts `tirx serve --workspace DIR` and calls its tools."""

    def __init__(self, workspace, tirx=None, actor=None, session=None):
        cmd = [find_tirx(tirx), "serve", "--workspace", workspace]
        if actor:
            cmd += ["--actor", actor]
        if session:
            cmd += ["--session", session]
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, bufsize=1)
        self._ids = itertools.count(1)
        self.server_info = self.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "tirx-python", "version": "0.1.0"}})
        self.notify("notifications/initialized")

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._proc.stdin.write(json.dumps(message) + "\n")
        self._proc.stdin.flush()

    def request(self, method, params=None):
        ident = next(self._ids)
        message = {"jsonrpc": "2.0", "id": ident, "method": method,
                   "params": params or {}}
        self._proc.stdin.write(json.dumps(message) + "\n")
        self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        if not line:
            raise HarnessError(-32000, "tirx serve closed the connection")
        reply = json.loads(line)
        if "error" in reply:
            e = reply["error"]
            raise HarnessError(e.get("code"), e.get("message"), e.get("data"))
        return reply["result"]

    def call(self, tool, **arguments):
        """The structured result of a tool, or HarnessError with the rejection."""
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        content = result.get("structuredContent") or json.loads(result["content"][0]["text"])
        if result.get("isError"):
            error = content.get("error") or {}
            raise HarnessError(error.get("code"), error.get("message"), content)
        return content

    def tools(self):
        return self.request("tools/list")["tools"]

    def close(self):
        if self._proc.poll() is None:
            self._proc.stdin.close()
            self._proc.wait(timeout=30)
        self._proc.stdout.close()

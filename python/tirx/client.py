"""A minimal MCP (JSON-RPC 2.0 over stdio) client for `tirx serve`."""
import itertools
import json
import os
import shutil
import subprocess
from typing import Any, Dict, List, Optional

from .version import __version__


class HarnessError(Exception):
    """A JSON-RPC error from the harness; `data` holds the rejection."""

    def __init__(self, code: Optional[int], message: str,
                 data: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data or {}


# The environment variable that names each program.
_ENV = {"tirx": "TIRX_BIN", "tirx-run": "TIRX_RUN_BIN"}


def find_tool(name: str, explicit: Optional[str] = None) -> str:
    """The absolute path of a TIRx program ("tirx" or "tirx-run"): `explicit`,
    else $TIRX_BIN / $TIRX_RUN_BIN, else the program in $TIRX_BIN_DIR, else
    the one on PATH (an installed TIRx), else the build tree of the checkout
    this package sits in (build/bin)."""
    variable = _ENV.get(name, name.upper().replace("-", "_") + "_BIN")
    directory = os.environ.get("TIRX_BIN_DIR")
    checkout = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "..", "..", "build", "bin", name)
    candidates = [explicit, os.environ.get(variable),
                  os.path.join(directory, name) if directory else None,
                  shutil.which(name), checkout]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    if explicit:
        raise FileNotFoundError("%s: not an executable %s" % (explicit, name))
    raise FileNotFoundError(
        "%s not found: install TIRx (cmake --install) so that it is on PATH, "
        "or set %s or TIRX_BIN_DIR" % (name, variable))


def find_tirx(explicit: Optional[str] = None) -> str:
    """The tirx program (see find_tool)."""
    return find_tool("tirx", explicit)


def find_tirx_run(explicit: Optional[str] = None) -> str:
    """The tirx-run program (see find_tool)."""
    return find_tool("tirx-run", explicit)


class MCPClient:
    """Starts `tirx serve --workspace DIR` and calls its tools."""

    def __init__(self, workspace: str, tirx: Optional[str] = None,
                 actor: Optional[str] = None, session: Optional[str] = None) -> None:
        self.tirx = find_tirx(tirx)
        cmd = [self.tirx, "serve", "--workspace", workspace]
        if actor:
            cmd += ["--actor", actor]
        if session:
            cmd += ["--session", session]
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, bufsize=1)
        self._ids = itertools.count(1)
        self.server_info = self.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "tirx-python", "version": __version__}})
        self.notify("notifications/initialized")

    def notify(self, method: str, params: Optional[Dict[str, Any]] = None) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._proc.stdin.write(json.dumps(message) + "\n")
        self._proc.stdin.flush()

    def request(self, method: str, params: Optional[Dict[str, Any]] = None) -> Any:
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

    def call(self, tool: str, **arguments: Any) -> Dict[str, Any]:
        """The structured result of a tool, or HarnessError with the rejection."""
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        content = result.get("structuredContent") or json.loads(result["content"][0]["text"])
        if result.get("isError"):
            error = content.get("error") or {}
            raise HarnessError(error.get("code"), error.get("message"), content)
        return content

    def tools(self) -> List[Dict[str, Any]]:
        return self.request("tools/list")["tools"]

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.stdin.close()
            self._proc.wait(timeout=30)
        self._proc.stdout.close()

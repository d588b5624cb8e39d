"""TIRxContext: the seed's API over the harness."""
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Union

from .client import HarnessError, MCPClient


@dataclass
class Rejection:
    """Why the harness refused a request (the same fields as the audit log)."""
    code: str
    message: str
    hint: str = ""
    payload_op: str = ""
    location: str = ""

    @classmethod
    def from_error(cls, error: HarnessError) -> "Rejection":
        e = (error.data or {}).get("error", {})
        return cls(e.get("code", "error"), e.get("message", str(error)),
                   e.get("hint", ""), e.get("payload_op", ""), e.get("location", ""))

    def __str__(self) -> str:
        text = "%s: %s" % (self.code, self.message)
        if self.hint:
            text += " (hint: %s)" % self.hint
        return text


@dataclass
class ApplyResult:
    ok: bool
    new_version: Optional[str] = None
    rejection: Optional[Rejection] = None
    deduplicated: bool = False
    reason: str = field(default="")


class TIRxContext:
    """A workspace of versions, driven through `tirx serve`.

    `backend` is "cuda" (the only one); `target` the chip; every request is
    recorded in the workspace's audit log (it cannot be turned off:
    enable_audit=False is refused rather than silently ignored).
    """

    def __init__(self, backend: str = "cuda", target: str = "sm_90",
                 workspace_dir: str = "./tirx-workspace", enable_audit: bool = True,
                 tirx: Optional[str] = None, actor: Optional[str] = None,
                 session: Optional[str] = None) -> None:
        if backend != "cuda":
            raise ValueError("backend %r: TIRx lowers to CUDA (NVVM/PTX) only" % backend)
        if not enable_audit:
            raise ValueError("the workspace audits every request; it cannot be disabled")
        self.backend, self.target = backend, target
        self.workspace_dir = os.path.abspath(workspace_dir)
        self._client = MCPClient(self.workspace_dir, tirx=tirx, actor=actor, session=session)

    # -- versions ---------------------------------------------------------
    def commit_ir(self, ir: str, message: str = "", parent: Optional[str] = None) -> str:
        """Records MLIR text (or a path to it); the first commit starts the
        workspace. Returns the new version id."""
        if os.path.isfile(ir):
            with open(ir) as f:
                ir = f.read()
        args = {"ir": ir}
        if message:
            args["message"] = message
        if parent is None and os.path.exists(os.path.join(self.workspace_dir, "workspace.json")):
            parent = self.head()
        if parent:
            args["parent"] = parent
        return self._client.call("commit_ir", **args)["version"]["id"]

    def read_ir(self, version: str) -> str:
        return self._client.call("read_ir", version=version)["ir"]

    def head(self) -> str:
        return self._client.call("log")["head"]

    def log(self) -> Dict[str, Any]:
        return self._client.call("log")

    def checkout(self, version: str) -> str:
        return self._client.call("checkout", version=version)["head"]

    # -- acting -----------------------------------------------------------
    def apply(self, version_id: str, transform: str,
              params: Optional[Dict[str, Any]] = None,
              target: Union[str, Dict[str, Any], None] = None,
              message: Optional[str] = None) -> ApplyResult:
        """Applies an action; returns ApplyResult with the new version or the
        rejection (code, message, hint, payload op)."""
        action = {"transform": transform, "params": params or {}}
        if target:
            # "linalg.generic", or {"op": "linalg.generic", "index": 1} for
            # one op of the kind (program order).
            action["target"] = dict(target) if isinstance(target, dict) else {"op": target}
        args = {"version": version_id, "action": action}
        if message:
            args["message"] = message
        return self._apply(args)

    def apply_script(self, version_id: str, script: Union[str, List[Dict[str, Any]]],
                     policy: str = "strict") -> ApplyResult:
        return self._apply({"version": version_id, "script": script, "policy": policy})

    def _apply(self, args: Dict[str, Any]) -> ApplyResult:
        try:
            out = self._client.call("apply", **args)
            return ApplyResult(True, out["version"]["id"],
                               deduplicated=bool(out.get("deduplicated")))
        except HarnessError as e:
            rejection = Rejection.from_error(e)
            return ApplyResult(False, rejection=rejection, reason=str(rejection),
                               deduplicated=bool((e.data or {}).get("deduplicated")))

    def action_schema(self) -> Dict[str, Any]:
        return self._client.call("action_schema")

    # -- seeing and measuring ---------------------------------------------
    def view(self, version: str, what: str) -> Dict[str, Any]:
        return self._client.call("view", version=version, what=what)["view"]

    def summarize(self, version: str) -> str:
        return self._client.call("summarize", version=version)["view"]["text"]

    def diff(self, a: str, b: str) -> Dict[str, Any]:
        return self._client.call("diff", **{"from": a, "to": b})

    def run(self, version_id: str, profile_rounds: Optional[int] = None,
            timeout: Optional[int] = None) -> Dict[str, Any]:
        """Lowers, bundles and runs the version against its seed's reference.
        Returns the feedback dict; without a GPU it is compile-only
        (compile_status, launch_status "no_device")."""
        args = {"version": version_id}
        if profile_rounds:
            args["samples"] = int(profile_rounds)
        if timeout:
            args["timeout"] = int(timeout)
        try:
            return self._client.call("run", **args)["feedback"]
        except HarnessError as e:
            data = e.data or {}
            if "feedback" in data and isinstance(data["feedback"], dict):
                return data["feedback"]
            feedback_file = data.get("feedback")
            if isinstance(feedback_file, str) and os.path.exists(feedback_file):
                import json
                with open(feedback_file) as f:
                    return json.load(f)
            raise

    def suggest(self, version_id: str, skipped: Sequence[str] = ()) -> Dict[str, Any]:
        """`tirx auto vN --suggest`: the library's next steps at `version_id`,
        nothing applied. Returns version, mapped and steps (why, optional,
        key, candidates: actions best first); `skipped`: keys of optional
        steps to pass over, as auto does once each of their candidates was
        refused."""
        import json
        import subprocess
        cmd = [self._client.tirx, "auto", version_id, "--suggest",
               "--workspace", self.workspace_dir, "--json"]
        for key in skipped:
            cmd += ["--skip", key]
        p = subprocess.run(cmd, capture_output=True, text=True)
        try:
            out = json.loads(p.stdout)
        except ValueError:
            raise HarnessError(None, "tirx auto --suggest answered no JSON: " +
                               (p.stdout + p.stderr)[-400:])
        if not out.get("ok", True):
            raise HarnessError(None, "tirx auto --suggest: %s" % out.get("error"))
        return out

    def auto(self, version_id: str, max_steps: Optional[int] = None) -> Dict[str, Any]:
        """`tirx auto`: actions chosen by the library's rules from
        `version_id` until a version mapped to the GPU, each step a version
        (lib/Harness/Auto.cpp). Returns its JSON: final_version, steps
        (from, to, action, why, ok, error), and ok; on a stop, ok is False
        and error the last refusal."""
        import json
        import subprocess
        cmd = [self._client.tirx, "auto", version_id, "--workspace", self.workspace_dir, "--json"]
        if max_steps:
            cmd += ["--max-steps", str(int(max_steps))]
        p = subprocess.run(cmd, capture_output=True, text=True)
        try:
            return json.loads(p.stdout)
        except ValueError:
            raise HarnessError(None, "tirx auto answered no JSON: " + (p.stdout + p.stderr)[-400:])

    def session(self) -> Dict[str, Any]:
        """The session as a dict: task, target, versions, steps."""
        return self._client.call("export_session")["session"]

    def export_session(self, path: str) -> Dict[str, Any]:
        """The session as a dict, also written to `path` (by this process:
        the server never writes where an agent asks)."""
        import json
        session = self.session()
        with open(path, "w") as f:
            json.dump(session, f, indent=2)
        return session

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> "TIRxContext":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

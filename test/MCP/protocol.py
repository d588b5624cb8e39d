"""MCP conformance of tirx serve, checked message by message.

protocol.py TIRX WORKSPACE. Prints one line per check; FileCheck reads them.
"""
import json
import subprocess
import sys

tirx, ws = sys.argv[1:3]


def exchange(messages):
    """Sends the messages to one server; returns its answers by id."""
    text = "".join(json.dumps(m) + "\n" for m in messages)
    out = subprocess.run([tirx, "serve", "--workspace", ws], input=text,
                         capture_output=True, text=True, check=True).stdout
    answers = [json.loads(line) for line in out.splitlines()]
    return {json.dumps(a.get("id")): a for a in answers}, out


def call(i, name, arguments=None):
    params = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": params}


def initialize(i, version):
    return {"jsonrpc": "2.0", "id": i, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {},
                       "clientInfo": {"name": "test", "version": "0"}}}


answers, raw = exchange([
    initialize(1, "1999-01-01"),
    initialize(2, "2025-03-26"),
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
    call(4, "apply", {"version": "v1", "action": {
        "transform": "vectorize", "params": {"width": 4}}}),
    call(5, "read_ir", {"version": 1}),
    call(6, "no_such_tool"),
    {"jsonrpc": "2.0", "id": 7, "method": "prompts/list"},
    call(8, "view", {"version": "v1", "what": "summary", "extra": 1}),
    call(9, "read_ir", {}),
    call(10, "read_ir", {"version": "v9"}),
    call(11, "run", {"version": "v1", "samples": 0}),
    call(12, "run", {"version": "v1", "timeout": 99999999}),
    call(13, "view", {"version": "v1", "what": "everything"}),
    call(14, "read_ir", {"version": "../v1"}),
    call(15, "apply", {"version": "v1", "script": "x", "policy": "lax"}),
])


def get(i):
    return answers[json.dumps(i)]


# Negotiation: an unknown version gets the server's newest, a known one
# itself (the spec: the same version if supported, else another).
print("initialize 1999-01-01 ->", get(1)["result"]["protocolVersion"])
print("initialize 2025-03-26 ->", get(2)["result"]["protocolVersion"])
print("answers:", len(answers), "(the notification has none)")

# Tools: titles, annotations, output schemas, every parameter described,
# descriptions that stand on their own.
tools = get(3)["result"]["tools"]
undescribed = []


def walk(schema, where):
    for key, prop in schema.get("properties", {}).items():
        if "description" not in prop:
            undescribed.append(where + "." + key)
        walk(prop, where + "." + key)
    for i, alt in enumerate(schema.get("oneOf", []) + schema.get("anyOf", [])):
        walk(alt, where + "[%d]" % i)
    if isinstance(schema.get("items"), dict):
        walk(schema["items"], where + "[]")


for t in tools:
    walk(t["inputSchema"], t["name"])
print("tools:", len(tools))
print("every tool has title, annotations, outputSchema:",
      all({"title", "annotations", "outputSchema"} <= t.keys()
          for t in tools))
print("annotation hints:", sorted({k for t in tools
                                   for k in t["annotations"]}))
print("undescribed parameters:", undescribed)
print("descriptions pointing at docs/:", "docs/" in json.dumps(tools))

# A refusal is a tool result with isError, the structured refusal in
# structuredContent, and the same JSON as text.
r = get(4)["result"]
print("refusal: isError %s code %s hint %s"
      % (r["isError"], r["structuredContent"]["error"]["code"],
         r["structuredContent"]["error"]["hint"]))
print("refusal text is the structured content:",
      json.loads(r["content"][0]["text"]) == r["structuredContent"])
print("wrong argument type:",
      get(5)["result"]["structuredContent"]["error"]["message"])
print("unknown tool:", get(6)["error"]["code"], get(6)["error"]["message"])
print("unknown method:", get(7)["error"]["code"])
print("unknown argument:",
      get(8)["result"]["structuredContent"]["error"]["message"])
print("missing argument:",
      get(9)["result"]["structuredContent"]["error"]["message"])
print("unknown version:",
      get(10)["result"]["structuredContent"]["error"]["code"])
# What the schema advertises beyond types (bounds, enums, patterns) is
# held by the server too: a client may not validate.
for i in range(11, 16):
    print("out of schema:",
          get(i)["result"]["structuredContent"]["error"]["code"],
          get(i)["result"]["structuredContent"]["error"]["message"])
print("temporary file names in answers:",
      any(s in raw for s in ("/tmp/", "tirx-child", "view-")))

"""JSON-RPC messages with number ids and values outside a double's range."""
lines = [
    '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
    '{"jsonrpc":"2.0","id":-1E-400,"method":"ping"}',
    '{"jsonrpc":"2.0","id":12345678901234567890123,"method":"ping"}',
    '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1.50,"method":"ping"}',
    '{"jsonrpc":"2.0","id":"1e400","method":"ping"}',
    '{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":1e999}}',
    '{"jsonrpc":"2.0","id":[1e400],"method":"ping"}',
    '{"jsonrpc":"2.0","id":[1],"method":"ping"}',
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run",'
    '"arguments":{"version":"v1","samples":1e300}}}',
]
for line in lines:
    print(line)

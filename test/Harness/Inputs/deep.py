"""Writes JSON nested N deep (default 100000) to stdout: deep.py [N] [PREFIX].

With PREFIX, the text is PREFIX followed by the nesting (a JSON-RPC message
whose params are deep, say)."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
prefix = sys.argv[2] if len(sys.argv) > 2 else ""
sys.stdout.write(prefix + "[" * n + "\n")

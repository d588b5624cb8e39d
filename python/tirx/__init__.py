"""TIRx: the Python face of the harness (stdlib only).

It talks to `tirx serve` (MCP over stdio) and never re-implements the
harness: every check, refusal and audit line comes from the C++ side.
"""
from .client import HarnessError, MCPClient, find_tirx
from .context import ApplyResult, Rejection, TIRxContext
from .agent import (GreedyPolicy, HarnessAgent, LLMPolicy, Observation, Plan,
                    RandomPolicy, prompt_payload)

__all__ = ["ApplyResult", "GreedyPolicy", "HarnessAgent", "HarnessError",
           "LLMPolicy", "MCPClient", "Observation", "Plan", "RandomPolicy",
           "Rejection", "TIRxContext", "find_tirx", "prompt_payload"]

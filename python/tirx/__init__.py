"""TIRx: the Python face of the harness (stdlib only).

It talks to `tirx serve` (MCP over stdio) and never re-implements the
harness: every check, refusal and audit line comes from the C++ side.
"""
from .version import __version__
from .client import HarnessError, MCPClient, find_tirx, find_tirx_run, find_tool
from .context import ApplyResult, Rejection, TIRxContext
from .agent import (GreedyPolicy, HarnessAgent, LLMPolicy, Observation, Plan,
                    PolicyRefusal, RandomPolicy, choose_parallel_tiling, cyclic_chunk, llm_prompt,
                    library_plan, parse_reply, prompt_payload, row_block_threads,
                    vector_widths)

__all__ = ["__version__", "ApplyResult", "GreedyPolicy", "HarnessAgent", "HarnessError",
           "LLMPolicy", "MCPClient", "Observation", "Plan", "PolicyRefusal", "RandomPolicy",
           "Rejection", "TIRxContext", "find_tirx", "find_tirx_run", "find_tool",
           "choose_parallel_tiling", "cyclic_chunk", "library_plan", "llm_prompt", "parse_reply", "prompt_payload",
           "row_block_threads", "vector_widths"]

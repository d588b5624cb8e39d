#!/usr/bin/env python3
"""Peers of the bf16 matmul benchmark (matmul16_peers.py)."""
import matmul16_peers


def run(timer, samples, keep):
    return matmul16_peers.run(timer, samples, keep, "bfloat16")


if __name__ == "__main__":
    import peers
    peers.main(["--only", "matmul_bf16"])

#!/usr/bin/env python3
"""Peers of the f16 matmul benchmark (matmul16_peers.py)."""
import matmul16_peers


def run(timer, samples, keep):
    return matmul16_peers.run(timer, samples, keep, "float16")


if __name__ == "__main__":
    import peers
    peers.main(["--only", "matmul_f16"])

"""The llama.cpp Hearth runs is built without AMX (scripts/install.sh).

ggml's AMX kernels, which -march=native enables on Sapphire Rapids and later Xeons, load a tile
configuration the compiler has optimised away (llama.cpp issue 20824, PR 26954): on such a
machine every answer died with a general protection fault at ``ldtilecfg`` in
``ggml_backend_amx_mul_mat`` (seen 2026-12-08 on Hearth's CI kind of machine, a 2-core Xeon
VM). The installer compiles llama.cpp with ``-mno-amx-*``; llama.cpp's system information names
the kernels it was built with.
"""

from __future__ import annotations

import platform

import pytest


@pytest.mark.skipif(platform.machine() != "x86_64", reason="AMX is an x86-64 extension")
def test_llama_cpp_is_built_without_amx_kernels() -> None:
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode()
    assert "CPU :" in info, info  # the line lists the CPU features it was built with
    assert "AMX" not in info, f"llama.cpp was built with AMX kernels, which crash: {info}"

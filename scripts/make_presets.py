#!/usr/bin/env python3
"""Writes the Hugging Face presets of models/: each a verbatim published config.json (copied from
tests/data/hf, whose README.md gives where each copy was obtained) in models/hf/, and a preset in
models/models/ that names it, says where it was published and which repos it stands for.

Run from anywhere: python3 scripts/make_presets.py   (then rebuild; the presets are compiled in)
"""
import json
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parent.parent
HF = "https://huggingface.co/{}/blob/main/config.json"

# id, name, test fixture, repos (the first is the one the config was published in), published
# total parameters as the model card states them (informational; tests compare within 2%).
PRESETS = [
    ("llama-3.3-70b", "Llama 3.3 70B Instruct", "llama-3.3-70b",
     ["meta-llama/Llama-3.3-70B-Instruct"], 70.6e9),
    ("llama-4-scout", "Llama 4 Scout 17B-16E", "llama-4-scout",
     ["meta-llama/Llama-4-Scout-17B-16E-Instruct", "meta-llama/Llama-4-Scout-17B-16E"], 109e9),
    ("qwen3-8b", "Qwen3 8B", "qwen3-8b", ["Qwen/Qwen3-8B", "Qwen/Qwen3-8B-Base"], 8.2e9),
    ("qwen3-14b", "Qwen3 14B", "qwen3-14b", ["Qwen/Qwen3-14B", "Qwen/Qwen3-14B-Base"], 14.8e9),
    ("qwen3-32b", "Qwen3 32B", "qwen3-32b", ["Qwen/Qwen3-32B"], 32.8e9),
    ("qwen3-30b-a3b", "Qwen3 30B-A3B", "qwen3-30b-a3b",
     ["Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-30B-A3B-Base", "Qwen/Qwen3-30B-A3B-Instruct-2507",
      "Qwen/Qwen3-30B-A3B-Thinking-2507"], 30.5e9),
    ("qwen3-235b-a22b", "Qwen3 235B-A22B", "qwen3-235b-a22b",
     ["Qwen/Qwen3-235B-A22B", "Qwen/Qwen3-235B-A22B-Instruct-2507",
      "Qwen/Qwen3-235B-A22B-Thinking-2507"], 235e9),
    ("qwen3-235b-a22b-fp8", "Qwen3 235B-A22B FP8", "qwen3-235b-a22b-fp8",
     ["Qwen/Qwen3-235B-A22B-FP8"], 235e9),
    ("qwen3-next-80b-a3b", "Qwen3-Next 80B-A3B", "qwen3-next-80b-a3b",
     ["Qwen/Qwen3-Next-80B-A3B-Thinking", "Qwen/Qwen3-Next-80B-A3B-Instruct"], 80e9),
    ("qwen3.5-397b-a17b", "Qwen3.5 397B-A17B", "qwen3.5-397b-a17b", ["Qwen/Qwen3.5-397B-A17B"],
     397e9),
    ("qwen3.5-35b-a3b", "Qwen3.5 35B-A3B", "qwen3.5-35b-a3b", ["Qwen/Qwen3.5-35B-A3B"], 35e9),
    ("qwen2.5-vl-7b", "Qwen2.5-VL 7B Instruct", "qwen2.5-vl-7b", ["Qwen/Qwen2.5-VL-7B-Instruct"],
     8.29e9),
    ("gpt-oss-20b", "gpt-oss-20b", "gpt-oss-20b", ["openai/gpt-oss-20b"], 20.9e9),
    ("gpt-oss-120b", "gpt-oss-120b", "gpt-oss-120b", ["openai/gpt-oss-120b"], 116.8e9),
    ("gemma-3-4b", "Gemma 3 4B", "gemma-3-4b", ["google/gemma-3-4b-it", "google/gemma-3-4b-pt"],
     4.3e9),
    ("gemma-3-27b", "Gemma 3 27B", "gemma-3-27b",
     ["google/gemma-3-27b-it", "google/gemma-3-27b-pt"], 27.4e9),
    ("mistral-nemo", "Mistral Nemo 12B", "mistral-nemo",
     ["mistralai/Mistral-Nemo-Instruct-2407"], 12.2e9),
    ("phi-4", "Phi-4", "phi-4", ["microsoft/phi-4"], 14.7e9),
    ("deepseek-r1", "DeepSeek-R1", "deepseek-r1", ["deepseek-ai/DeepSeek-R1",
     "deepseek-ai/DeepSeek-R1-0528"], 671e9),
    ("deepseek-v3.1", "DeepSeek-V3.1", "deepseek-v3.1",
     ["deepseek-ai/DeepSeek-V3.1", "deepseek-ai/DeepSeek-V3.1-Terminus"], 671e9),
    ("deepseek-v3.2", "DeepSeek-V3.2", "deepseek-v3.2",
     ["deepseek-ai/DeepSeek-V3.2", "deepseek-ai/DeepSeek-V3.2-Exp"], 671e9),
    ("kimi-k2", "Kimi K2", "kimi-k2", ["moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2-Base"],
     1.03e12),
    ("kimi-k2.5", "Kimi K2.5", "kimi-k2.5", ["moonshotai/Kimi-K2.5"], 1.03e12),
    ("minimax-m1", "MiniMax-M1", "minimax-m1",
     ["MiniMaxAI/MiniMax-M1-80k", "MiniMaxAI/MiniMax-M1-40k"], 456e9),
    # Issue 29 item 5 (2026 models). MiniMax-M2.5's only vendored copy is hand-trimmed; M2.7 (the
    # newest M2.x, same layer geometry) is a full dump. GLM-5 is published as BF16 by zai-org.
    ("minimax-m2.7", "MiniMax-M2.7", "minimax-m2.7", ["MiniMaxAI/MiniMax-M2.7"], 230e9),
    ("glm-5", "GLM-5", "glm-5", ["zai-org/GLM-5"], 744e9),
    ("nemotron-h-56b", "Nemotron-H 56B Base", "nemotron-h-56b-base-8k",
     ["nvidia/Nemotron-H-56B-Base-8K"], 56e9),
    # The models of inference-sim's sim-to-real experiments (tests/data/sim2real/README.md).
    ("codellama-34b", "CodeLlama 34B Instruct", "codellama-34b",
     ["codellama/CodeLlama-34b-Instruct-hf", "codellama/CodeLlama-34b-hf"], 33.7e9),
    ("yi-34b", "Yi 34B", "yi-34b", ["01-ai/Yi-34B"], 34.4e9),
    ("mixtral-8x22b", "Mixtral 8x22B v0.1", "mixtral-8x22b", ["mistralai/Mixtral-8x22B-v0.1"],
     141e9),
    ("mixtral-8x22b-instruct", "Mixtral 8x22B Instruct v0.1", "mixtral-8x22b-instruct",
     ["mistralai/Mixtral-8x22B-Instruct-v0.1"], 141e9),
    ("llama-4-scout-fp8-dynamic", "Llama 4 Scout 17B-16E Instruct FP8-dynamic",
     "llama-4-scout-fp8-dynamic", ["RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic"], 109e9),
    # A GPTQ checkpoint (4-bit, one group per output column), from the HF repo's own git history.
    ("wizard-vicuna-30b-gptq", "Wizard-Vicuna 30B Uncensored GPTQ (4-bit, no group size)",
     "wizard-vicuna-30b-gptq", ["TheBloke/Wizard-Vicuna-30B-Uncensored-GPTQ"], 32.5e9),
    # Formerly hand-written presets (architecture fields only, so the step-time model read them
    # as dense); now wrappers over their verbatim configs, which carry the MoE routing fields.
    # Ids and hf_repos as before; the DeepSeek ones named none, and now name their repos.
    ("mixtral-8x7b", "Mixtral 8x7B v0.1", "mixtral-8x7b",
     ["mistralai/Mixtral-8x7B-v0.1", "mistralai/Mixtral-8x7B-Instruct-v0.1"], 46.7e9),
    ("deepseek-v3", "DeepSeek-V3", "deepseek-v3",
     ["deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3-Base"], 671e9),
    ("deepseek-v2-lite", "DeepSeek-V2-Lite", "deepseek-v2-lite",
     ["deepseek-ai/DeepSeek-V2-Lite", "deepseek-ai/DeepSeek-V2-Lite-Chat"], 15.7e9),
]


def main():
    (ROOT / "models" / "hf").mkdir(exist_ok=True)
    for pid, name, fixture, repos, published in PRESETS:
        src = ROOT / "tests" / "data" / "hf" / f"{fixture}.json"
        shutil.copyfile(src, ROOT / "models" / "hf" / f"{fixture}.json")
        preset = {
            "kvplan_model": 1,
            "id": pid,
            "name": name,
            "source": HF.format(repos[0]),
            "hf_repos": repos,
            "published_params": int(published),
            "hf_config_file": f"hf/{fixture}.json",
        }
        out = ROOT / "models" / "models" / f"{pid}.json"
        out.write_text(json.dumps(preset, indent=2) + "\n")
    print(f"wrote {len(PRESETS)} presets")


if __name__ == "__main__":
    main()

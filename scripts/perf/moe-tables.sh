#!/usr/bin/env bash
# Regenerates models/perf/moe/*.txt from aiconfigurator's collected per-system MoE data (see
# moe-tables.mjs). A developer's tool: it needs a local git copy of ai-dynamo/aiconfigurator and
# installs the npm packages hyparquet and hyparquet-compressors into a temporary folder.
#   scripts/perf/moe-tables.sh /path/to/aiconfigurator.git [commit]
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=${1:?usage: scripts/perf/moe-tables.sh AICONFIGURATOR_GIT_DIR [COMMIT]}
commit=${2:-095f58a51c4ca8e61b66ec108d86f223f8d559ce}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp scripts/perf/moe-tables.mjs "$tmp/"
(cd "$tmp" && npm init -y > /dev/null && npm install --silent hyparquet@1 hyparquet-compressors@1)
# The routed-expert shapes of the MoE presets' config.json files, hidden:inter:topk:experts:alpha
# (alpha: 1.01 for MLA models, else 1.2; moe-tables.mjs says why).
shapes=$(python3 - <<'PY'
import glob, json
out = set()
for f in sorted(glob.glob("models/hf/*.json")):
    t = json.load(open(f))
    t = t.get("text_config", t)
    e = t.get("n_routed_experts") or t.get("num_local_experts") or t.get("num_experts")
    if not e:
        continue
    inter = t.get("moe_intermediate_size") or t.get("intermediate_size")
    k = t.get("num_experts_per_tok") or t.get("experts_per_token") or t.get("moe_topk")
    alpha = "1.01" if t.get("kv_lora_rank") else "1.2"
    out.add(f"{t['hidden_size']}:{inter}:{k}:{e}:{alpha}")
print(",".join(sorted(out)))
PY
)
mkdir -p models/perf/moe
# system engine version kvplan-gpu: the vLLM release kvplan's rules follow (0.19), SGLang 0.5.9
# (InferenceX's runs), TensorRT-LLM 1.3.0rc20.
while read -r system engine version gpu; do
  node "$tmp/moe-tables.mjs" "$repo" "$commit" "$system" "$engine" "$version" "$gpu" "$shapes" \
    "models/perf/moe/$gpu.$engine.txt"
done <<'LIST'
h100_sxm vllm 0.19.0 h100-sxm-80gb
h200_sxm vllm 0.19.0 h200-141gb
b200_sxm vllm 0.19.0 b200
h100_sxm sglang 0.5.9 h100-sxm-80gb
h200_sxm sglang 0.5.9 h200-141gb
b200_sxm sglang 0.5.9 b200
h100_sxm trtllm 1.3.0rc20 h100-sxm-80gb
h200_sxm trtllm 1.3.0rc20 h200-141gb
b200_sxm trtllm 1.3.0rc20 b200
LIST

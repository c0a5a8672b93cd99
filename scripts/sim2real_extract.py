#!/usr/bin/env python3
"""Writes tests/data/sim2real/ (experiments.csv, measured.csv, peers.csv, workloads/*.json) from
snapshots of the repositories that published inference-sim's sim-to-real validation, so that
every figure there can be regenerated and traced to a file and commit. README.md in that folder
says what each column means and where it comes from; this script is the exact procedure.

    python3 scripts/sim2real_extract.py \
        --validation /work/.mirror/inference-sim+sim-to-real-accuracy-validation/repo \
        --training /work/.mirror/inference-sim+training/repo

Both arguments are git directories (bare clones are fine): the script reads blobs at pinned
commits with `git show`, so a newer checkout does not change its output. For example, the
measured E2E mean of experiment 2 (CodeLlama-34B, TP 2, codegen) is the `actual` of its
stage -1 `e2e_mean` row in results_iter36/error_records.csv at 7f3b270: 3993.18 ms.
"""
import argparse
import csv
import io
import json
import pathlib
import subprocess
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "sim2real"

# inference-sim/sim-to-real-accuracy-validation
VAL_HEAD = "dcec3fd4711c761ac16557db720d1856b604579c"  # 2026-06-17, main
VAL_ITER36 = "7f3b27022dcd575958a2f0c7b2373afece64c655"  # 2026-05-08: last commit holding the test set's error_records.csv
TEST_RECORDS = "results_iter36/error_records.csv"
TRAIN_RECORDS = "results_trainval/error_records.csv"
LSS_RECORDS = "results/llmservingsim_error_records_matched.csv"
# inference-sim/training: the 16 runs of 2026-02-17/18 with their own profile.yaml, config.yaml
# (what inference-perf actually ran) and exp-config.yaml.
TRAINING = "ed5c1d26900e6909758d5e1641a18edaf56a1caf"

METRICS = ["e2e_mean", "e2e_p90", "e2e_p99", "ttft_mean", "ttft_p90", "ttft_p99", "itl_mean"]
GPU_PRESET = {"H100": "h100-sxm-80gb", "A100-80GB": "a100-80gb", "L40S": "l40s"}
# Hugging Face id -> kvplan preset (models/models/*.json lists the same ids in hf_repos).
MODEL_PRESET = {
    "meta-llama/Llama-2-7b-hf": "llama-2-7b",
    "meta-llama/Llama-2-70b-hf": "llama-2-70b",
    "meta-llama/Llama-3.1-8B-Instruct": "llama-3.1-8b",
    "meta-llama/Llama-3.1-70B-Instruct": "llama-3.1-70b",
    "codellama/CodeLlama-34b-Instruct-hf": "codellama-34b",
    "Qwen/Qwen3-14B": "qwen3-14b",
    "Qwen/Qwen2.5-7B-Instruct": "qwen2.5-7b",
    "mistralai/Mistral-Nemo-Instruct-2407": "mistral-nemo",
    "01-ai/Yi-34B": "yi-34b",
    "mistralai/Mixtral-8x7B-v0.1": "mixtral-8x7b",
    "mistralai/Mixtral-8x22B-v0.1": "mixtral-8x22b",
    "mistralai/Mixtral-8x22B-Instruct-v0.1": "mixtral-8x22b-instruct",
    "RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic": "llama-4-scout-fp8-dynamic",
}
# The training repo names models by their directory; these are the Hugging Face ids its
# exp-config.yaml files give.
KV_LOGGED = {
    # inference-sim/inference-sim b05154c4992db35b5e89d946b26d8d7dc6748b5b,
    # hypotheses/h30-replay-fidelity/FINDINGS.md line 175: the BLIS replay command for this run
    # passes --total-kv-blocks 26602 --block-size-in-tokens 16, taken from the run's step traces
    # (kv.blocks_total_gpu, training/generate_replay_specs.py of the same commit).
    "20260218-150304-codellama-34b-tp2-general": (26602, 16, "isim b05154c4 hypotheses/h30-replay-fidelity/FINDINGS.md:175"),
}


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True).stdout


def records(repo, commit, path):
    return list(csv.DictReader(io.StringIO(git(repo, "show", f"{commit}:{path}"))))


def folder(r):
    return r["experiment_folder"].rstrip("/").split("/")[-1]


def workload_class(f):
    """The workload named in a run's folder. The records' own `workload` column folds the lighter
    variants into their class (train rows of general-lite runs say "general"), so it is not used."""
    for c in ("general-lite", "reasoning-lite", "general", "codegen", "roleplay", "reasoning"):
        if f"-{c}" in f:
            return c
    sys.exit(f"no workload in run folder {f}")


def num(x):
    return float(x) if x not in ("", None) else None


def fmt(x):
    if x is None:
        return ""
    if isinstance(x, float):
        return f"{x:.6g}" if abs(x) < 1e6 else f"{x:.0f}"
    return str(x)


# ---- Workloads: the inference-perf profiles, as kvplan_workload documents.

def class_profiles(training):
    """workload class -> (profile.yaml data, results/config.yaml, run folder), from the 16 runs."""
    out = {}
    runs = git(training, "ls-tree", "--name-only", f"{TRAINING}:default_args").split()
    for run in runs:
        base = f"{TRAINING}:default_args/{run}"
        prof = json.loads(git(training, "show", f"{base}/profile.yaml"))
        eff = yaml.safe_load(git(training, "show", f"{base}/results/config.yaml"))
        cls = run.rsplit("-", 1)[1]
        key = (json.dumps(prof["data"], sort_keys=True), json.dumps(prof["load"], sort_keys=True),
               json.dumps(eff["data"], sort_keys=True), json.dumps(eff["load"]["stages"]))
        if cls in out and out[cls][3] != key:
            sys.exit(f"default_args runs of class {cls} disagree: {run} vs {out[cls][2]}")
        out.setdefault(cls, (prof, eff, run, key))
    return {c: v[:3] for c, v in out.items()}


def workload_doc(exp, cls, prof, eff, run, own):
    sp = eff["data"]["shared_prefix"]  # what inference-perf ran (its config.yaml dump)
    stages = [{"rate": s["rate"], "duration_s": s["duration"]} for s in eff["load"]["stages"]]
    where = ("this run's own profile.yaml and results/config.yaml" if own else
             f"the {cls} class as run in {run} (this run's own profile is not published)")
    return {
        "kvplan_workload": 1,
        "description": (
            f"sim-to-real experiment {exp}: inference-perf shared_prefix workload '{cls}', from "
            f"{where}, inference-sim/training@{TRAINING[:8]} default_args/{run}. inference-perf's "
            f"'{eff['load']['type']}' load type draws exponential gaps and rescales them to fill "
            f"each stage with exactly rate x duration requests (a Poisson process given its "
            f"count), hence 'poisson' here. {sp['num_groups']} x {sp['num_prompts_per_group']} "
            f"prompts of {sp['system_prompt_len']} shared + {sp['question_len']} own tokens, "
            f"request n sends prompt n mod {sp['num_groups'] * sp['num_prompts_per_group']}; "
            f"ignore_eos, max_tokens {sp['output_len']}."),
        "arrival": "poisson",
        "stages": stages,
        "prompt_tokens": {"dist": "fixed", "mean": sp["question_len"]},
        "output_tokens": {"dist": "fixed", "mean": sp["output_len"]},
        "prefix": {"groups": sp["num_groups"], "shared_tokens": sp["system_prompt_len"],
                   "prompt_pool": sp["num_groups"] * sp["num_prompts_per_group"]},
    }


def summary_metrics(summ):
    """The seven metrics (ms) of an inference-perf summary_lifecycle_metrics.json, as the
    validation's experiment/ground_truth.py (HEAD dcec3fd4, _parse_stage_metrics) reads them."""
    lat, succ = summ["successes"]["latency"], summ["successes"]
    e2e, ttft = lat["request_latency"], lat["time_to_first_token"]
    return {"e2e_mean": e2e["mean"] * 1e3, "e2e_p90": e2e["p90"] * 1e3, "e2e_p99": e2e["p99"] * 1e3,
            "ttft_mean": ttft["mean"] * 1e3, "ttft_p90": ttft["p90"] * 1e3,
            "ttft_p99": ttft["p99"] * 1e3,
            # not inference-perf's inter_token_latency: (mean E2E - mean TTFT) / (mean
            # output_len - 1), with the measured (re-tokenized) output length
            "itl_mean": (e2e["mean"] - ttft["mean"]) / max(succ["output_len"]["mean"] - 1, 1) * 1e3}


# ---- The three tables.

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--validation", required=True, help="git dir of sim-to-real-accuracy-validation")
    ap.add_argument("--training", required=True, help="git dir of inference-sim/training")
    a = ap.parse_args()

    test = records(a.validation, VAL_ITER36, TEST_RECORDS)
    train = records(a.validation, VAL_HEAD, TRAIN_RECORDS)
    lss = records(a.validation, VAL_HEAD, LSS_RECORDS)
    iter36 = git(a.validation, "rev-parse", VAL_ITER36).strip()
    classes = class_profiles(a.training)

    exps = {}  # folder -> row
    measured = []
    for split, rows, commit, path in (("train", train, VAL_HEAD, TRAIN_RECORDS),
                                      ("test", test, iter36, TEST_RECORDS)):
        for r in rows:
            f = folder(r)
            if f not in exps:
                exps[f] = dict(split=split, r=r, src=f"{path}@{commit[:8]}", actual={})
            exps[f]["actual"].setdefault((int(r["stage_index"]), r["metric_name"]),
                                         float(r["actual"]))

    # The 16 runs of inference-sim/training: configuration and profile of their own.
    runs = git(a.training, "ls-tree", "--name-only", f"{TRAINING}:default_args").split()
    own = {}
    for run in runs:
        base = f"{TRAINING}:default_args/{run}"
        cfg = yaml.safe_load(git(a.training, "show", f"{base}/exp-config.yaml"))
        summ = json.loads(git(a.training, "show", f"{base}/results/summary_lifecycle_metrics.json"))
        own[run] = (cfg, summ)

    exp_rows, workloads = [], {}
    order = sorted(exps, key=lambda f: (exps[f]["split"] != "train", f.split("-")[0].zfill(14)))
    for f in order + sorted(r for r in runs if r not in exps):
        e = exps.get(f)
        r = e["r"] if e else None
        split = e["split"] if e else "extra"
        cls = workload_class(f)
        model = r["model"] if r else own[f][0]["model"]
        if f in own:
            cfg = own[f][0]
            tp, mbt, seqs, mml = (cfg["tensor_parallelism"], cfg["max_num_batched_tokens"],
                                  cfg["max_num_seqs"], cfg["max_model_len"])
            cfg_src = f"training@{TRAINING[:8]} default_args/{f}/exp-config.yaml"
            seqs_src = "exp-config.yaml"
        else:
            tp, mbt = int(float(r["tp"])), int(float(r["max_num_batched_tokens"]))
            seqs, mml = 128, 4096
            cfg_src = e["src"] + " (tp, max_num_batched_tokens, gpu_mem_util, cpu_offload, dp)"
            seqs_src = "assumed: the collection's value in every published exp-config.yaml"
        hw = r["hardware"] if r else "H100"
        gmu = num(r["gpu_mem_util"]) if r else None
        offload = (r["cpu_offload"] if r else "")
        if f in own and offload == "":
            offload = "True"  # design doc 2026-03-04 section 1: all 16 runs offload 8 GiB to CPU
        kv = KV_LOGGED.get(f)
        wl = ""
        if cls in classes:
            prof, eff, run = classes[cls]
            workloads[f] = workload_doc(f, cls, prof, eff, run, own=f in own)
            wl = f"workloads/{f}.json"
        exp_rows.append({
            "exp": f, "exp_id": f.split("-")[0] if not f.startswith("2026") else "",
            "split": split, "model_hf": model, "model_preset": MODEL_PRESET[model],
            "hardware": hw, "gpu_preset": GPU_PRESET[hw], "tp": tp,
            "dp": (r["dp"] if r else "") or "1", "precision": (r["precision"] if r else "FP16"),
            "vllm": "0.15.1", "max_model_len": mml, "max_num_seqs": seqs,
            "max_num_seqs_source": seqs_src, "max_num_batched_tokens": mbt,
            "gpu_memory_utilization": fmt(gmu if gmu is not None else 0.9),
            "gpu_memory_utilization_source": "record" if gmu is not None else "vLLM default",
            "cpu_offload": offload, "workload": cls, "workload_file": wl,
            "workload_source": ("own profile" if f in own and wl else
                                "class profile" if wl else "not published"),
            "gpu_kv_blocks_logged": kv[0] if kv else "", "block_size": kv[1] if kv else "",
            "kv_source": kv[2] if kv else "", "config_source": cfg_src,
        })
        if e and f in own:  # in both: the summary, read as the validation reads it, agrees
            for m, v in summary_metrics(own[f][1]).items():
                if abs(v - e["actual"][(-1, m)]) > 1e-9 * abs(v):
                    sys.exit(f"{f} {m}: summary gives {v}, the records {e['actual'][(-1, m)]}")
        if e:
            for (stage, metric), v in sorted(e["actual"].items()):
                measured.append({"exp": f, "stage": stage, "metric": metric, "value_ms": fmt(v),
                                 "source": e["src"]})
        else:
            vals = summary_metrics(own[f][1])
            src = f"training@{TRAINING[:8]} default_args/{f}/results/summary_lifecycle_metrics.json"
            for m in METRICS:
                measured.append({"exp": f, "stage": -1, "metric": m, "value_ms": fmt(vals[m]),
                                 "source": src})
    # Request counts and token lengths where the runs' own summaries are published.
    extra = []
    for f in sorted(own):
        succ = own[f][1]["successes"]
        fails = own[f][1]["failures"]["count"]
        extra.append({"exp": f, "successes": succ["count"], "failures": fails,
                      "prompt_len_mean": fmt(succ["prompt_len"]["mean"]),
                      "output_len_mean": fmt(succ["output_len"]["mean"]),
                      "output_len_median": fmt(succ["output_len"]["median"]),
                      "requests_per_s": fmt(succ["throughput"]["requests_per_sec"]),
                      "output_tokens_per_s": fmt(succ["throughput"]["output_tokens_per_sec"]),
                      "source": f"training@{TRAINING[:8]} default_args/{f}/results/"
                                "summary_lifecycle_metrics.json"})

    peers = []
    for rows, path, commit, note in (
            (train, TRAIN_RECORDS, VAL_HEAD, ""), (test, TEST_RECORDS, iter36, ""),
            (lss, LSS_RECORDS, VAL_HEAD, "first 300 requests only; actual is over those 300")):
        for r in rows:
            if r["stage_index"] != "-1" or r["metric_name"] not in METRICS:
                continue
            f = folder(r)
            comparable = f in exps
            peers.append({"exp": f, "peer": r["simulator"], "metric": r["metric_name"],
                          "predicted_ms": fmt(float(r["predicted"])),
                          "actual_ms": fmt(float(r["actual"])),
                          "ape_pct": fmt(abs(float(r["mpe"]))), "mpe_pct": fmt(float(r["mpe"])),
                          "source": f"{path}@{commit[:8]}",
                          "note": note if comparable else
                          (note + "; " if note else "") + "another run than the one of this id "
                          "in the test set (older folder name)"})

    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "workloads").mkdir(exist_ok=True)

    def write(name, rows):
        with open(OUT / name, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
            w.writeheader()
            w.writerows(rows)

    write("experiments.csv", exp_rows)
    write("measured.csv", measured)
    write("runs.csv", extra)
    write("peers.csv", peers)
    for f, doc in workloads.items():
        (OUT / "workloads" / f"{f}.json").write_text(json.dumps(doc, indent=2) + "\n")
    print(f"{len(exp_rows)} experiments ({sum(e['split'] == 'train' for e in exp_rows)} train, "
          f"{sum(e['split'] == 'test' for e in exp_rows)} test), {len(workloads)} workloads, "
          f"{len(measured)} measured values, {len(peers)} peer errors")


if __name__ == "__main__":
    main()

// Kubernetes manifests and Helm values as deployments to check: the engine containers of a
// multi-document YAML file (apps/v1 Deployment and StatefulSet, v1 Pod, LeaderWorkerSet, KServe
// InferenceService, vLLM production-stack Helm values), each read into one engine command line,
// its GPUs and GPU type, and checked as `kvplan check --vllm "..." --gpu G` checks it. Field names
// and their sources: docs/k8s.md.
//
//   ManifestScan s = kvplan::load_manifests("deploy.yaml");
//   // a Deployment "serving/llama" whose container runs
//   //   command: ["vllm", "serve"], args: ["meta-llama/Llama-3.1-8B-Instruct",
//   //                                      "--max-model-len", "32768"]
//   // with resources.limits["nvidia.com/gpu"]: 1, nodeSelector nvidia.com/gpu.product:
//   // NVIDIA-H100-80GB-HBM3 and replicas: 2 gives one ManifestDeployment {kind "Deployment",
//   // ns "serving", name "llama", engine vllm, gpus 1, gpu "h100-sxm-80gb", replicas 2}
//   ManifestReport r = kvplan::check_manifests(s);
//   r.passed()  // exit 0 when every deployment passes, 1 otherwise; a bad manifest throws (2)
//   render(r, OutputFormat::junit)  // one <testcase name="serving/llama"> per deployment
//
// Every problem is an Error naming the file, the document (1-based, in stream order) and the
// path in it: "deploy.yaml: document 2: spec.template.spec.containers[0].resources.limits.
// nvidia.com/gpu: expects a whole number of GPUs, got \"1.5\"".
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kvplan/deploy.hpp"
#include "kvplan/planner.hpp"
#include "kvplan/report.hpp"

namespace kvplan {

struct ManifestDeployment {
  std::string source;        // the file
  std::size_t document = 0;  // 1-based position in the YAML stream
  std::string kind, ns, name;
  std::string path;  // the engine container in the document: "spec.template.spec.containers[0]"
  Engine engine = Engine::vllm;
  // The engine command as kvplan reads it (Kubernetes $(VAR) references resolved from literal
  // env values; a reference to a value kvplan cannot see stays "$(VAR)", see `opaque`).
  std::vector<std::string> argv;
  std::string command_line;                // argv, quoted for a POSIX shell
  std::map<std::string, std::string> env;  // the container's literal env values
  std::string image;  // the container's image: its tag may name the engine's release
  // Env names whose value kvplan cannot see (valueFrom a secret, configMap or field, or a shell
  // variable not set in the manifest), each with the path that declares it.
  std::map<std::string, std::string> opaque;
  std::uint32_t gpus = 0;  // GPUs per replica: the pod's, or a LeaderWorkerSet group's
  std::string gpu;         // the GPU preset id
  std::string gpu_from;    // which label, affinity term or annotation named it
  std::uint32_t replicas = 1;
  std::vector<std::string> warnings;  // env not modelled, shell commands left out, ...
};

struct ManifestScan {
  std::string source;
  std::vector<ManifestDeployment> deployments;
  // Documents that run no engine: "document 2: ConfigMap kube-system/foo: runs no engine".
  std::vector<std::string> skipped;
};

// True when `path` is to be read as manifests: it ends in .yaml or .yml, or its first
// character other than white space is neither '{' nor '[' (so not JSON). Reads at most 4 KiB.
bool is_manifest_file(const std::string& path);

// Reads every document of `text` (named `source` in errors). Throws Error on a document kvplan
// cannot read; a document that runs no engine is listed in `skipped`.
ManifestScan read_manifests(const std::string& text, const std::string& source);
ManifestScan load_manifests(const std::string& path);

// The deployment one replica of `m` is: its command line read as the engine reads it
// (parse_engine_command + deploy_from_engine) on its GPU. Throws Error naming the document and
// path, also when a value kvplan cannot see (a secret) changes what is checked. `strict`: unknown
// engine flags are errors.
Deployment manifest_deployment(const ManifestDeployment& m, bool strict = false);

struct ManifestCheck {
  ManifestDeployment manifest;
  CheckReport report;  // one replica's checks, with the pod's GPUs against the engine's
};

struct ManifestReport {
  std::string source;
  std::vector<ManifestCheck> checks;
  std::vector<std::string> skipped;
  bool passed() const;           // every deployment passes
  std::size_t failures() const;  // deployments with a failed check
};

// Checks every deployment of `s` (throws Error when there is none: a file that runs no engine
// gates nothing) (run_check on one replica, plus "pod_gpus": the GPUs the pod or
// group is given cover TP × PP × DP of its engine command).
ManifestReport check_manifests(const ManifestScan& s, bool strict = false);

// text (one section per deployment), json, md, junit: one <testcase> per deployment, named
// "namespace/name", classname "kvplan.k8s.<namespace>", and one skipped <testcase> per
// document that runs no engine.
std::string render(const ManifestReport& r, OutputFormat f);

}  // namespace kvplan

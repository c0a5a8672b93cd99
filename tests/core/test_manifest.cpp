// Kubernetes manifests and Helm values read into deployments (kvplan/manifest.hpp): each kind,
// the fields it takes GPUs, GPU type, replicas and the engine command from, and every kind of
// manifest kvplan cannot read. Expected values are written out by hand from the manifest text,
// or compared with the same deployment given as an engine command line (deploy_from_engine).
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "kvplan/deploy.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/manifest.hpp"

namespace kvplan {
namespace {

// A Deployment of one vLLM container; `pod_extra` goes into the pod spec, `container_extra` into
// the container (both indented by the caller's YAML).
std::string deployment(const std::string& name, const std::string& args,
                       const std::string& gpus = "1",
                       const std::string& pod_extra =
                           "      nodeSelector:\n"
                           "        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\n",
                       const std::string& container_extra = "") {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
         "\n  namespace: serving\nspec:\n  replicas: 3\n  template:\n    spec:\n" + pod_extra +
         "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.10.1\n"
         "          command: [\"vllm\", \"serve\"]\n          args: " +
         args + "\n" + container_extra + "          resources:\n            limits:\n" +
         "              nvidia.com/gpu: " + gpus + "\n";
}

const std::string kLlama = R"y(["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "32768"])y";

// The Error's full message for `text`, failing the test when it reads (and checks).
std::string error_of(const std::string& text) {
  try {
    const auto s = read_manifests(text, "m.yaml");
    for (const auto& d : s.deployments) (void)manifest_deployment(d);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_EQ(e.source(), "m.yaml") << e.what();
    return e.what();
  }
  ADD_FAILURE() << "read without error:\n" << text;
  return "";
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

TEST(Manifest, ReadsATwoDocumentDeploymentManifest) {
  // The issue's case: two Deployments running `vllm serve` in one file, and a Service.
  const std::string text =
      "# comment first, as manifests in git have\n" + deployment("llama", kLlama) +
      "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: llama\n"
      "  namespace: serving\n---\n" +
      deployment("llama-tp2", R"y(["meta-llama/Llama-3.1-8B-Instruct", "-tp", "2"])y", "\"2\"");
  const ManifestScan s = read_manifests(text, "m.yaml");
  ASSERT_EQ(s.deployments.size(), 2u);
  const auto& a = s.deployments[0];
  EXPECT_EQ(a.document, 1u);
  EXPECT_EQ(a.kind, "Deployment");
  EXPECT_EQ(a.ns, "serving");
  EXPECT_EQ(a.name, "llama");
  EXPECT_EQ(a.engine, Engine::vllm);
  EXPECT_EQ(a.path, "spec.template.spec.containers[0]");
  EXPECT_EQ(a.command_line, "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768");
  EXPECT_EQ(a.gpus, 1u);
  EXPECT_EQ(a.gpu, "h100-sxm-80gb");
  EXPECT_EQ(a.gpu_from, "spec.template.spec.nodeSelector.nvidia.com/gpu.product");
  EXPECT_EQ(a.replicas, 3u);
  EXPECT_EQ(s.deployments[1].document, 3u);
  EXPECT_EQ(s.deployments[1].gpus, 2u);  // the quoted "2" is a count too
  ASSERT_EQ(s.skipped.size(), 1u);
  EXPECT_EQ(s.skipped[0], "document 2: Service serving/llama: runs no engine");
}

TEST(Manifest, OneReplicaChecksAsTheSameCommandLine) {
  // The independent path: `kvplan check --vllm "..." --gpu h100-sxm-80gb --vllm-version 0.10.1`
  // (the container's image is vllm/vllm-openai:v0.10.1).
  const auto s = read_manifests(deployment("llama", kLlama), "m.yaml");
  const Deployment m = manifest_deployment(s.deployments.at(0));
  const EngineArgs a = parse_engine_command(
      Engine::vllm, "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768", "--vllm");
  Deployment c = deploy_from_engine(a, load_gpu("h100-sxm-80gb"), 0, "", "--vllm");
  set_engine(c.plan, "vllm@0.10.1", "--vllm-version", "vllm-version");
  const CheckReport rm = run_check(m), rc = run_check(c);
  EXPECT_EQ(m.name, "serving/llama");
  EXPECT_EQ(m.plan.gpus, 1u);  // one replica: the 3 replicas are 3 such engines
  EXPECT_EQ(rm.capacity.kv_cache_tokens, rc.capacity.kv_cache_tokens);
  EXPECT_EQ(rm.capacity.memory.available_bytes, rc.capacity.memory.available_bytes);
  EXPECT_EQ(rm.passed(), rc.passed());
  EXPECT_EQ(rm.items.size(), rc.items.size());
}

TEST(Manifest, PodGpusMustCoverTheEngine) {
  // -tp 2 on a pod given 1 GPU: the engine cannot start; the check names both numbers.
  const auto s =
      read_manifests(deployment("x", R"y(["meta-llama/Llama-3.1-8B-Instruct", "-tp", "2"])y"), "m");
  const ManifestReport r = check_manifests(s);
  ASSERT_EQ(r.checks.size(), 1u);
  const CheckItem& g = r.checks[0].report.items.at(0);
  EXPECT_EQ(g.id, "pod_gpus");
  EXPECT_FALSE(g.passed);
  EXPECT_EQ(g.detail, "1 GPU given (Deployment), the engine needs 2");
  EXPECT_EQ(g.fix, "set resources.limits nvidia.com/gpu: 2");
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.failures(), 1u);
  // 4 GPUs for TP 1: passes, 3 idle, said so.
  const auto idle = check_manifests(read_manifests(deployment("y", kLlama, "4"), "m"));
  EXPECT_TRUE(idle.checks[0].report.items[0].passed);
  bool warned = false;
  for (const auto& w : idle.checks[0].report.deploy.warnings)
    warned |= w.find("3 of the 4 GPUs given to each replica stay idle") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(Manifest, ExpandsKubernetesVariablesFromLiteralEnv) {
  const std::string env =
      "          env:\n            - name: LEN\n              value: \"16384\"\n"
      "            - name: ARGS\n              value: \"--max-model-len $(LEN)\"\n";
  const auto s = read_manifests(
      deployment("x", R"y(["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "$(LEN)",
                          "--served-model-name", "$$(LEN)"])y",
                 "1", "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L40S}\n", env),
      "m");
  const auto& m = s.deployments.at(0);
  // $(LEN) -> 16384; $$ is a literal $ (Kubernetes' escape).
  EXPECT_EQ(m.argv.at(4), "16384");
  EXPECT_EQ(m.argv.at(6), "$(LEN)");
  EXPECT_EQ(m.env.at("ARGS"), "--max-model-len 16384");  // an env value expands earlier ones
  EXPECT_EQ(manifest_deployment(m).plan.context, 16384u);
  EXPECT_EQ(m.gpu, "l40s");
}

TEST(Manifest, ASecretThatChangesTheCheckIsAnError) {
  const std::string secret =
      "          env:\n            - name: LEN\n              valueFrom:\n"
      "                secretKeyRef: {name: s, key: len}\n"
      "            - name: KEY\n              valueFrom:\n"
      "                secretKeyRef: {name: s, key: key}\n";
  const auto sel = "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n";
  // --max-model-len from a secret: kvplan cannot say what runs.
  const std::string what = error_of(
      deployment("x", R"y(["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "$(LEN)"])y", "1",
                 sel, secret));
  EXPECT_HAS(what, "m.yaml: document 1: spec.template.spec.containers[0].env[0].valueFrom: ");
  EXPECT_HAS(what, "$LEN");
  // --api-key from a secret does not change the check: read as written.
  const auto s = read_manifests(
      deployment("x", R"y(["meta-llama/Llama-3.1-8B-Instruct", "--api-key", "$(KEY)"])y", "1", sel,
                 secret),
      "m.yaml");
  EXPECT_EQ(manifest_deployment(s.deployments.at(0)).plan.context, 131072u);  // the model's own
}

TEST(Manifest, TakesTheEngineCommandOutOfAShellScript) {
  const std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n"
      "    kvplan.io/gpu: h100-sxm-80gb\nspec:\n  containers:\n    - name: c\n"
      "      image: vllm/vllm-openai\n      command: [\"/bin/sh\", \"-c\"]\n      args:\n"
      "        - |\n          pip install hf_transfer && \\\n"
      "          VLLM_ATTENTION_BACKEND=FLASHINFER exec vllm serve \\\n"
      "            meta-llama/Llama-3.1-8B-Instruct --max-model-len \"${LEN}\"\n"
      "      env: [{name: LEN, value: \"8192\"}]\n"
      "      resources: {limits: {nvidia.com/gpu: 1}}\n";
  const auto s = read_manifests(pod, "m.yaml");
  ASSERT_EQ(s.deployments.size(), 1u);
  const auto& m = s.deployments[0];
  EXPECT_EQ(m.kind, "Pod");
  EXPECT_EQ(m.ns, "default");
  EXPECT_EQ(m.replicas, 1u);
  EXPECT_EQ(m.gpu_from, "metadata.annotations.kvplan.io/gpu");
  EXPECT_EQ(m.command_line, "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192");
  EXPECT_EQ(m.env.at("VLLM_ATTENTION_BACKEND"), "FLASHINFER");
  std::string all;
  for (const auto& w : m.warnings) all += w + "\n";
  EXPECT_HAS(all,
             "spec.containers[0].args[0]: took the engine command from the shell script; "
             "left out: pip install hf_transfer");
  EXPECT_HAS(all, "env VLLM_ATTENTION_BACKEND=FLASHINFER: can change KV sizing, not modelled");

  // Two engine commands in one script: refused, naming the script.
  std::string two = pod;
  two.replace(two.find("pip install hf_transfer"), 23, "vllm serve Qwen/Qwen3-8B");
  EXPECT_HAS(error_of(two),
             "document 1: spec.containers[0].args[0]: the shell script runs 2 "
             "engine commands");
}

TEST(Manifest, LeaderWorkerSetGroupsAddTheirGpus) {
  // vLLM's LWS recipe: the leader starts Ray and the server, the worker joins.
  const std::string lws = R"y(apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: big, namespace: ml}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      metadata:
        annotations: {kvplan.io/gpu: h100-sxm-80gb}
      spec:
        containers:
          - name: leader
            image: vllm/vllm-openai
            command: ["sh", "-c", "bash multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); python3 -m vllm.entrypoints.openai.api_server --model meta-llama/Llama-3.1-405B-Instruct --tensor-parallel-size 8 --pipeline_parallel_size 2 --max-model-len 32768"]
            resources: {limits: {nvidia.com/gpu: "8"}}
    workerTemplate:
      spec:
        containers:
          - name: worker
            image: vllm/vllm-openai
            command: ["sh", "-c", "bash multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"]
            resources: {limits: {nvidia.com/gpu: "8"}}
)y";
  const auto s = read_manifests(lws, "m.yaml");
  ASSERT_EQ(s.deployments.size(), 1u);
  const auto& m = s.deployments[0];
  EXPECT_EQ(m.gpus, 16u);  // leader 8 + (size 2 - 1) × worker 8
  EXPECT_EQ(m.replicas, 2u);
  EXPECT_EQ(m.path, "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0]");
  std::string all;
  for (const auto& w : m.warnings) all += w + "\n";
  // $(LWS_GROUP_SIZE) is expanded by Kubernetes from the controller's variable before the shell.
  EXPECT_HAS(all, "--ray_cluster_size=2");
  const ManifestReport r = check_manifests(s);
  EXPECT_TRUE(r.checks[0].report.items[0].passed) << r.checks[0].report.items[0].detail;
  EXPECT_EQ(r.checks[0].report.deploy.plan.gpus, 16u);  // TP 8 × PP 2
  EXPECT_EQ(r.checks[0].report.deploy.plan.pp, 2u);
}

TEST(Manifest, AffinityWithSeveralGpusTakesTheSmallest) {
  const std::string aff =
      "      affinity:\n        nodeAffinity:\n"
      "          requiredDuringSchedulingIgnoredDuringExecution:\n"
      "            nodeSelectorTerms:\n              - matchExpressions:\n"
      "                  - {key: nvidia.com/gpu.product, operator: In, values: "
      "[NVIDIA-H100-80GB-HBM3, NVIDIA-L4]}\n"
      "                  - {key: kubernetes.io/arch, operator: In, values: [amd64]}\n";
  const auto s = read_manifests(deployment("x", kLlama, "1", aff), "m");
  EXPECT_EQ(s.deployments.at(0).gpu, "l4");  // 24 GB < 80 GB
  EXPECT_EQ(
      s.deployments[0].gpu_from,
      "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
      ".nodeSelectorTerms[0].matchExpressions[0].values[1] (the least memory of 2 allowed)");
  // An annotation naming another GPU than the node selector: refused.
  std::string both = deployment("x", kLlama);
  both.replace(both.find("  namespace: serving\n"), 20,
               "  namespace: serving\n  annotations: {kvplan.io/gpu: a100-80gb}");
  EXPECT_HAS(error_of(both),
             "names GPU h100-sxm-80gb, but metadata.annotations.kvplan.io/gpu "
             "names a100-80gb");
}

TEST(Manifest, BadManifestsNameTheDocumentAndPath) {
  const std::string ok = deployment("ok", kLlama) + "---\n";
  EXPECT_HAS(error_of(ok + "- just\n- a list\n"),
             "m.yaml: document 2: expects a map (a Kubernetes object or Helm values), got a list");
  EXPECT_HAS(
      error_of(deployment("x", kLlama, "\"1.5\"")),
      "m.yaml: document 1: spec.template.spec.containers[0].resources.limits.nvidia.com/gpu: "
      "expects a whole number of GPUs, got \"1.5\"");
  EXPECT_HAS(error_of(deployment("x", kLlama, "1",
                                 "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-A10G}\n")),
             "document 1: spec.template.spec.nodeSelector.nvidia.com/gpu.product: unknown GPU "
             "product \"NVIDIA-A10G\"");
  EXPECT_HAS(
      error_of(deployment(
          "x", kLlama, "1",
          "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB-MIG-1g.10gb}\n")),
      "(a MIG slice: kvplan sizes whole GPUs)");
  EXPECT_HAS(error_of(deployment("x", kLlama, "1", "")),
             "document 1: Deployment serving/x: no GPU type: add the node selector "
             "nvidia.com/gpu.product");
  EXPECT_HAS(error_of(deployment("x", kLlama, "0")),
             "document 1: spec.template.spec.containers[0].resources.limits.nvidia.com/gpu: no "
             "nvidia.com/gpu limit");
  // An engine image without a command kvplan can read.
  EXPECT_HAS(error_of("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                      "    - {name: c, image: lmsysorg/sglang:latest}\n"),
             "document 1: spec.containers[0]: runs the engine image \"lmsysorg/sglang:latest\" "
             "without command or args");
  EXPECT_HAS(error_of("kvplan_deploy: 1\nmodel: llama-3.1-8b\n"),
             "a kvplan deployment file is JSON");
  EXPECT_HAS(
      error_of("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n"
               "    spec:\n      containers:\n        - {name: c, command: [vllm, serve, m]}\n"),
      "document 1: kind: Job j runs an engine, but kvplan reads Deployment");
  EXPECT_HAS(error_of("apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\n"
                      "metadata: {name: i}\nspec:\n  predictor:\n    workerSpec: {}\n"),
             "document 1: spec.predictor.workerSpec: a multi-node predictor");
  EXPECT_HAS(error_of("a: [1, 2\n"), "malformed YAML at line");
  EXPECT_HAS(error_of("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: 3}\n"),
             "document 1: spec.containers: expects a list");
}

TEST(Manifest, AliasBombsAndSelfReferenceAreRefusedQuickly) {
  // Nine levels of nine aliases: 9^9 = 387,420,489 nodes once expanded.
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n";
  std::string prev = "a";
  for (char c = 'b'; c <= 'i'; ++c) {
    const std::string n(1, c);
    bomb += n + ": &" + n + " [";
    for (int i = 0; i < 9; ++i) bomb += (i ? ", *" : "*") + prev;
    bomb += "]\n";
    prev = n;
  }
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_HAS(error_of(bomb), "expands to more than 200,000 YAML nodes");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  // A self-referential anchor: refused (nesting or node budget), never endless.
  try {
    (void)read_manifests("a: &a [*a]\n", "m.yaml");
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2) << e.what();
  }
}

TEST(Manifest, ProductionStackValuesRenderAsTheChartDoes) {
  // helm/templates/deployment-vllm-multi.yaml @ production-stack a6c01db0: vllm serve modelURL,
  // then the vllmConfig flags in the template's order, extraArgs last.
  const std::string values = R"y(servingEngineSpec:
  env: [{name: VLLM_LOGGING_LEVEL, value: DEBUG}]
  modelSpec:
    - name: llama
      modelURL: meta-llama/Llama-3.1-8B-Instruct
      replicaCount: 2
      requestGPU: 2
      nodeSelectorTerms:
        - matchExpressions:
            - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-H200]}
      vllmConfig:
        enableChunkedPrefill: true
        maxModelLen: 16384
        tensorParallelSize: 2
        gpuMemoryUtilization: 0.8
        extraArgs: ["--kv-cache-dtype", "fp8"]
    - name: qwen-8b
      enabled: false
      modelURL: Qwen/Qwen3-8B
)y";
  const auto s = read_manifests(values, "values.yaml");
  ASSERT_EQ(s.deployments.size(), 1u);
  const auto& m = s.deployments[0];
  EXPECT_EQ(m.ns + "/" + m.name, "default/llama");
  EXPECT_EQ(m.command_line,
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --enable-chunked-prefill "
            "--no-enable-prefix-caching --max-model-len 16384 --tensor-parallel-size 2 "
            "--gpu_memory_utilization 0.8 --kv-cache-dtype fp8");
  EXPECT_EQ(m.gpus, 2u);
  EXPECT_EQ(m.replicas, 2u);
  EXPECT_EQ(m.gpu, "h200-141gb");
  EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();  // VLLM_LOGGING_LEVEL does not size
  ASSERT_EQ(s.skipped.size(), 1u);
  EXPECT_EQ(s.skipped[0], "document 1: servingEngineSpec.modelSpec[1] qwen-8b: enabled: false");
  const Deployment d = manifest_deployment(m);
  EXPECT_EQ(d.plan.tp, 2u);
  EXPECT_EQ(d.plan.memory_fraction_ppm, 800000u);
  EXPECT_EQ(d.plan.format.dtype, KvDtype::fp8_e4m3);
}

TEST(Manifest, LlmDValuesRenderAsTheChartDoes) {
  // charts/llm-d-modelservice/templates/_helpers.tpl @ llm-d-modelservice 3051935e:
  // vllmServeModelCommand, tensor/data/dataLocal parallelism, numGpuPerWorker = dataLocal x tp.
  const std::string values = R"y(fullnameOverride: qwen
modelArtifacts:
  name: Qwen/Qwen3-8B
  uri: "hf://{{ .Values.modelArtifacts.name }}"
decode:
  replicas: 3
  parallelism: {tensor: 2, dataLocal: 2}
  acceleratorTypes: {labelKey: nvidia.com/gpu.product, labelValues: [NVIDIA-H200, NVIDIA-L40S]}
  containers:
    - name: vllm
      modelCommand: vllmServe
      args: ["--max-model-len", "8192"]
prefill:
  containers:
    - {name: vllm, modelCommand: vllmServe}
)y";
  const auto s = read_manifests(values, "v.yaml");
  ASSERT_EQ(s.deployments.size(), 1u);
  const auto& m = s.deployments[0];
  EXPECT_EQ(m.ns + "/" + m.name, "default/qwen-decode");
  EXPECT_EQ(m.kind, "llm-d decode");
  // No routing block: the proxy is on by default and decode listens on its targetPort 8200.
  EXPECT_EQ(m.command_line,
            "vllm serve Qwen/Qwen3-8B --port 8200 --tensor-parallel-size 2 --data-parallel-size 2 "
            "--data-parallel-size-local 2 --served-model-name Qwen/Qwen3-8B --max-model-len 8192");
  EXPECT_EQ(m.gpus, 4u);  // no limit given: dataLocal 2 x tensor 2
  EXPECT_EQ(m.replicas, 3u);
  EXPECT_EQ(m.gpu, "l40s");  // 48 GB < 141 GB
  EXPECT_EQ(m.gpu_from, "decode.acceleratorTypes.labelValues[1] (the least memory of 2 allowed)");
  ASSERT_EQ(s.skipped.size(), 1u);
  EXPECT_EQ(s.skipped[0], "document 1: llm-d prefill default/qwen-prefill: 0 replicas");
  const ManifestReport r = check_manifests(s);
  EXPECT_TRUE(r.checks[0].report.items[0].passed);  // TP 2 x DP 2 = the 4 GPUs
  EXPECT_EQ(r.checks[0].report.deploy.plan.gpus, 4u);

  std::string multi = values;
  multi.insert(0, "multinode: true\n");
  EXPECT_HAS(error_of(multi), "document 1: multinode: kvplan does not read llm-d's multinode");
  std::string image = values;
  image.replace(image.find("modelCommand: vllmServe\n"), 23, "modelCommand: imageDefault");
  EXPECT_HAS(error_of(image), "document 1: decode.containers[0].modelCommand: imageDefault");
}

TEST(Manifest, KServeHuggingFaceRuntimeReadsAsVllm) {
  const std::string isvc = R"y(apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: q, namespace: models}
spec:
  predictor:
    minReplicas: 3
    nodeSelector: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}
    model:
      modelFormat: {name: huggingface}
      args: ["--model_name=q", "--model_id=Qwen/Qwen3-8B", "--backend=vllm", "--max_model_len=8192"]
      resources: {limits: {nvidia.com/gpu: "1"}}
)y";
  const auto s = read_manifests(isvc, "m.yaml");
  ASSERT_EQ(s.deployments.size(), 1u);
  const auto& m = s.deployments[0];
  EXPECT_EQ(m.command_line, "vllm serve Qwen/Qwen3-8B --max_model_len=8192");
  EXPECT_EQ(m.replicas, 3u);
  EXPECT_EQ(m.gpu, "a100-80gb");
  EXPECT_EQ(m.path, "spec.predictor.model");
  EXPECT_EQ(manifest_deployment(m).plan.context, 8192u);
}

// A JUnit classname keeps to [A-Za-z0-9_.]: a namespace's '-' (a DNS label allows it) becomes
// '_', so CI tools that split classnames on '.' and reject other characters read it whole.
TEST(Manifest, JUnitClassnamesAreSafe) {
  std::string doc = deployment("good", kLlama);
  doc.replace(doc.find("namespace: serving"), 18, "namespace: team-a");
  const std::string x = render(check_manifests(read_manifests(doc, "m.yaml")), OutputFormat::junit);
  EXPECT_HAS(x, "<testcase classname=\"kvplan.k8s.team_a\" name=\"team-a/good\">");
}

TEST(Manifest, RendersOneJUnitTestcasePerDeployment) {
  const auto s = read_manifests(
      deployment("good", kLlama) + "---\n" +
          deployment("bad", R"y(["Qwen/Qwen3-32B", "--max-model-len", "16384"])y", "1",
                     "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}\n") +
          "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: serving}\n",
      "m.yaml");
  const ManifestReport r = check_manifests(s);
  ASSERT_EQ(r.checks.size(), 2u);
  EXPECT_TRUE(r.checks[0].report.passed());
  EXPECT_FALSE(r.checks[1].report.passed());  // ~65 GB of weights on a 24 GB L4
  const std::string x = render(r, OutputFormat::junit);
  EXPECT_HAS(x, "<testsuites name=\"kvplan\" tests=\"3\" failures=\"1\">");
  EXPECT_HAS(x, "<testcase classname=\"kvplan.k8s.serving\" name=\"serving/good\">");
  EXPECT_HAS(x, "<testcase classname=\"kvplan.k8s.serving\" name=\"serving/bad\">");
  EXPECT_HAS(x, "<skipped message=\"document 3: ConfigMap serving/c: runs no engine\"/>");
  EXPECT_EQ(x.find("<failure"), x.rfind("<failure"));  // one failing testcase
  EXPECT_LT(x.find("name=\"serving/bad\""), x.find("<failure"));
  const std::string j = render(r, OutputFormat::json);
  EXPECT_HAS(j, "\"name\": \"serving/good\"");
  EXPECT_HAS(render(r, OutputFormat::table), "kvplan check m.yaml: 2 deployments, 1 pass, 1 fail");
}

TEST(Manifest, AGpuWorkloadWithoutAnEngineIsSkippedSayingSo) {
  const auto s = read_manifests(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: train}\nspec:\n  containers:\n"
      "    - {name: c, image: pytorch/pytorch, command: [python, train.py],\n"
      "       resources: {limits: {nvidia.com/gpu: 8}}}\n",
      "m.yaml");
  ASSERT_EQ(s.skipped.size(), 1u);
  EXPECT_EQ(s.skipped[0],
            "document 1: Pod default/train: runs no engine (it requests nvidia.com/gpu, but no "
            "container runs vllm serve, SGLang or trtllm-serve)");
}

TEST(Manifest, AFileThatRunsNoEngineGatesNothing) {
  const auto s = read_manifests("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", "m.yaml");
  EXPECT_TRUE(s.deployments.empty());
  try {
    (void)check_manifests(s);
    ADD_FAILURE() << "checked nothing";
  } catch (const Error& e) {
    EXPECT_HAS(e.what(), "no document runs vLLM, SGLang or trtllm-serve");
    EXPECT_HAS(e.what(), "document 1: ConfigMap default/c: runs no engine");
  }
}

TEST(Manifest, EngineEnvironmentIsNeverDroppedSilently) {
  const std::string env =
      "          env:\n            - {name: VLLM_USE_V1, value: \"0\"}\n"
      "            - {name: VLLM_SOMETHING_NEW, value: \"1\"}\n"
      "            - {name: VLLM_PORT, value: \"8001\"}\n"
      "            - {name: HF_HOME, value: /data}\n";
  const auto s = read_manifests(
      deployment("x", kLlama, "1",
                 "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n", env),
      "m");
  const auto& w = s.deployments.at(0).warnings;
  ASSERT_EQ(w.size(), 2u);  // VLLM_PORT and HF_HOME do not size the KV cache
  EXPECT_HAS(w[0], "env VLLM_SOMETHING_NEW=1: not known to kvplan");
  EXPECT_HAS(w[1], "env VLLM_USE_V1=0: can change KV sizing, not modelled: 0 selects vLLM's V0");
}

// The variables kvplan models are read, not warned about: VLLM_USE_V2_MODEL_RUNNER selects the
// runner whose memory is checked (docs/engine-memory.md "Model Runner V2").
TEST(Manifest, ModelledEnvironmentReachesTheCheck) {
  const std::string env =
      "          env:\n            - {name: VLLM_USE_V2_MODEL_RUNNER, value: \"1\"}\n";
  std::string text =
      deployment("x", kLlama, "1",
                 "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n", env);
  // The container's image tag picks its release's rules: v0.10.1 predates Model Runner V2, so
  // the variable is refused, naming where the release came from.
  try {
    (void)manifest_deployment(read_manifests(text, "m.yaml").deployments.at(0));
    ADD_FAILURE() << "Model Runner V2 under a v0.10.1 image was checked";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "image");
    EXPECT_HAS(e.what(), "v2: kvplan's vllm@0.10 rules predate Model Runner V2");
  }
  text.replace(text.find("v0.10.1"), 7, "v0.25.1");
  const auto s = read_manifests(text, "m");
  const auto& m = s.deployments.at(0);
  EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();
  EXPECT_EQ(m.image, "vllm/vllm-openai:v0.25.1");
  const Deployment v2 = manifest_deployment(m);
  EXPECT_EQ(v2.plan.vllm().model_runner, VllmOptions::ModelRunner::v2);
  EXPECT_EQ(v2.plan.vllm().rules, VllmRules::v0_25);
  // LMCache's size per rank, as the engine process reads LMCACHE_MAX_LOCAL_CPU_SIZE (LMCache#2901).
  const std::string lmcache =
      "          env:\n            - {name: LMCACHE_MAX_LOCAL_CPU_SIZE, value: \"300\"}\n";
  const std::string args =
      R"y(["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "32768", "--kv-transfer-config", "{\"kv_connector\": \"LMCacheConnectorV1\", \"kv_role\": \"kv_both\"}"])y";
  const auto t = read_manifests(
      deployment("x", args, "1",
                 "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n", lmcache),
      "m");
  const Deployment d = manifest_deployment(t.deployments.at(0));
  EXPECT_TRUE(d.host_tiers.lmcache);
  EXPECT_EQ(d.host_tiers.lmcache_cpu_gib, std::optional<double>(300.0));
}

TEST(Manifest, LeadingZeroNumbersStayText) {
  // An unquoted 0800 is not a JSON number: kept as the text written, never a parse crash.
  const auto s = read_manifests(
      deployment("x", kLlama, "1",
                 "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n",
                 "          env: [{name: PORT, value: 0800}]\n"),
      "m");
  EXPECT_EQ(s.deployments.at(0).env.at("PORT"), "0800");
}

TEST(Manifest, RecognisesManifestFilesByNameOrContent) {
  EXPECT_TRUE(is_manifest_file("deploy.yaml"));
  EXPECT_TRUE(is_manifest_file("x/values.yml"));
  EXPECT_FALSE(is_manifest_file("deploy.json"));
  const std::string dir = std::string(KVPLAN_TEST_DATA_DIR) + "/deploy/";
  EXPECT_FALSE(is_manifest_file(dir + "pass.json"));
  EXPECT_FALSE(is_manifest_file(dir + "does-not-exist"));
}

}  // namespace
}  // namespace kvplan

// Workloads for the serving simulator: a `kvplan_workload` JSON file (version 1: arrival process,
// prompt and output length distributions, shared-prefix groups, a prompt pool, multi-turn
// sessions) or a request trace (JSONL or CSV), turned into a list of requests. Seeded: the same
// file and seed give the same requests on every machine (no std:: distributions, whose output
// the standard leaves to the implementation). docs/simulate.md documents the format.
//
//   Workload w = load_workload("examples/workload-chat.json", 1);
//   w.requests[0].prompt_tokens;   // Σ of its prompt segments: 100 (system prompt) + question
//   w.requests[0].prompt[0];       // {content id of one of the 10 system prompts, 100 tokens}
//
// A prompt is a list of segments; two requests whose prompts begin with the same segments begin
// with the same tokens, which is all prefix caching needs to know (block hashes are computed
// over segment ids and offsets).
//
// A document can also be read without drawing it (WorkloadSpec: what the file says, field by
// field) and written back (to_json), so an editor builds the spec and the library alone writes
// and reads the text:
//
//   WorkloadSpec s = parse_workload_spec(text, "chat.json");  // s.prompt.dist == "lognormal"
//   s.stages[0].rate = 4;                                     // 4 req/s instead of 2
//   Workload w = parse_workload_json(to_json(s), "edited", 1);
//   parse_workload_spec(to_json(s), "edited") == s;           // always
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kvplan::sim {

// `tokens` tokens of content `content`: equal ids are equal token sequences.
struct Segment {
  std::uint64_t content = 0;
  std::uint64_t tokens = 0;
  bool operator==(const Segment&) const = default;
};

struct SimRequest {
  std::uint64_t id = 0;         // index in Workload::requests
  double arrival_s = 0;         // arrival time; for a later turn of a session: see `after`
  std::uint32_t stage = 0;      // index into Workload::stages
  std::vector<Segment> prompt;  // Σ tokens == prompt_tokens
  std::uint64_t prompt_tokens = 0;
  std::uint64_t output_tokens = 0;  // tokens generated (≥ 1)
  // The request this one waits for (an index into Workload::requests, < id) or -1. Such a request
  // arrives think_s after that one finishes (or at arrival_s, if later). In a multi-turn session
  // it is the previous turn, and the prompt begins with the previous turn's prompt and its output
  // (a segment of the output's length with its own content id); for a closed-loop client it is
  // the client's previous request, and the prompt is the request's own.
  // For a generated workload arrival_s is then the previous turn's arrival_s + think_s (the
  // earliest it can arrive); for a trace it is the row's arrival_s and think_s is 0.
  std::int64_t after = -1;
  double think_s = 0;         // seconds
  std::uint64_t session = 0;  // 0 = no session; sessions are numbered from 1
  bool operator==(const SimRequest&) const = default;
};

struct WorkloadStage {
  double rate = 0;        // requests per second (sessions: new sessions per second)
  double duration_s = 0;  // length of the stage
  double start_s = 0;     // Σ of the earlier stages' durations
};

struct Workload {
  std::string source;                 // the file
  std::vector<WorkloadStage> stages;  // a trace and a closed loop have one stage spanning them
  std::vector<SimRequest> requests;   // by arrival_s (ties by id)
  // Closed loop (arrival "closed"): the clients, each with at most one request in the system
  // (request i belongs to client i mod concurrency); 0 for an open-loop workload.
  std::uint64_t concurrency = 0;
};

// What one workload may hold. The defaults are the documented limits (docs/simulate.md); a
// request costs ~120 bytes and a segment 16, so the largest workload is ~2 GiB. The fuzz target
// lowers them to keep each input fast.
struct WorkloadLimits {
  std::uint64_t max_requests = 10'000'000;
  // Prompt segments over all requests: a session's turn k holds ~2k of them, so long sessions
  // grow quadratically.
  std::uint64_t max_segments = std::uint64_t{1} << 26;
};

// ---- A `kvplan_workload` document as written, before anything is drawn from it
// (docs/simulate.md). Each field is the document's key of the same name.

struct HistogramBin {
  double lo = 0, hi = 0;  // bounds, inclusive (tokens, turns or seconds)
  double weight = 0;      // relative
  bool operator==(const HistogramBin&) const = default;
};

// A distribution of lengths (tokens, turns) or times (seconds): `dist` is "fixed", "uniform",
// "normal", "lognormal", "exponential" or "histogram". The writer writes only the keys `dist`
// uses: mean (all but uniform and histogram), std (normal, lognormal), bins (histogram); min
// and max when set (uniform requires both, or mean and range_ratio; elsewhere they clip).
// A uniform of tokens given as mean L and range_ratio r draws whole numbers in
// [max(1, floor(L·(1 − r))), ceil(L·(1 + r))], as vLLM's RandomDataset does.
struct LengthDist {
  std::string dist = "fixed";
  double mean = 0, std = 0;
  std::optional<double> min, max;
  std::optional<double> range_ratio;  // uniform of tokens only: [0, 1)
  std::vector<HistogramBin> bins;
  bool operator==(const LengthDist&) const = default;
};

// The distribution whose every draw is `n`.
inline LengthDist fixed_tokens(double n) {
  LengthDist d;
  d.mean = n;
  return d;
}

struct WorkloadStageSpec {
  double rate = 1;        // requests per second (sessions: new sessions per second)
  double duration_s = 1;  // seconds
  bool operator==(const WorkloadStageSpec&) const = default;
};

struct PrefixSpec {
  std::uint64_t groups = 1;         // system prompts
  std::uint64_t shared_tokens = 1;  // tokens of each
  std::uint64_t prompt_pool = 0;    // distinct prompts that recur; 0 = no pool
  bool operator==(const PrefixSpec&) const = default;
};

struct SessionsSpec {
  LengthDist turns = fixed_tokens(1);  // turns per session
  LengthDist think_s;                  // seconds between a turn's end and the next arrival
  bool operator==(const SessionsSpec&) const = default;
};

struct WorkloadSpec {
  std::string description;          // "" = none
  std::string arrival = "poisson";  // "poisson", "constant", "gamma" or "closed"
  double cv = 1;                    // gamma only: coefficient of variation of the gaps
  // closed only: clients, requests in all, and each client's pause between the finish of its
  // request and the sending of its next (milliseconds). A closed loop has no stages.
  std::uint64_t concurrency = 0, requests = 0;
  double think_time_ms = 0;
  std::vector<WorkloadStageSpec> stages{{2, 60}};
  LengthDist prompt = fixed_tokens(512);  // prompt_tokens (the question, without a prefix)
  LengthDist output = fixed_tokens(128);  // output_tokens
  std::optional<PrefixSpec> prefix;
  std::optional<SessionsSpec> sessions;
  bool operator==(const WorkloadSpec&) const = default;
};

// Reads and checks a `kvplan_workload` document as parse_workload_json does (the same errors,
// naming `source` and the JSON pointer), without drawing any request. Fields the document does
// not give keep the defaults above (cv = 1 unless gamma; mean, std = 0 where unused).
WorkloadSpec parse_workload_spec(const std::string& text, const std::string& source,
                                 const WorkloadLimits& limits = {});
// The document for `spec` (indented JSON text, keys in the order docs/simulate.md lists them;
// arrival as a string, or {"process": "gamma", "cv": ..} for gamma). Does not validate: parse it
// to know (a missing required field is the parser's error naming it).
std::string to_json(const WorkloadSpec& spec);
// Histogram bins as the document writes them ([[lo, hi, weight], ...]) and back, for an editor
// that shows them as text. The reader checks the shape only (the document's parser checks the
// ranges); errors name `source` and `pointer` ("/prompt_tokens/bins/1/2").
std::string bins_to_json(const std::vector<HistogramBin>& bins);
std::vector<HistogramBin> parse_bins_json(const std::string& text, const std::string& source,
                                          const std::string& pointer);

// A `kvplan_workload` JSON file as its spec, nothing drawn (the concurrency sweep draws it once a
// point). A trace (.jsonl / .csv) has no spec: refused naming the file.
WorkloadSpec load_workload_spec(const std::string& path, const WorkloadLimits& limits = {});

// A `kvplan_workload` JSON file, or a trace (.jsonl / .csv, by the path's extension, any case).
// Throws kvplan::Error naming the file and the field (a JSON pointer, or the line of a trace) on
// malformed input.
Workload load_workload(const std::string& path, std::uint64_t seed,
                       const WorkloadLimits& limits = {});
Workload parse_workload_json(const std::string& text, const std::string& source, std::uint64_t seed,
                             const WorkloadLimits& limits = {});
// Trace rows: arrival_s, prompt_tokens, output_tokens, optional prefix_id (requests with the same
// prefix_id share prefix_tokens leading tokens) and session_id (rows of one session are its turns
// in order). JSONL: one object per line; CSV: a header row naming the columns. Traces need no
// seed: nothing in them is drawn.
Workload parse_workload_trace(const std::string& text, const std::string& source, bool csv,
                              const WorkloadLimits& limits = {});

}  // namespace kvplan::sim

#include "kvplan/sim/probe.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"

namespace kvplan::sim {

namespace {

constexpr const char* kSource = "probe";

// splitmix64 (Steele, Lea, Flood 2014): the standard library's distributions differ between
// implementations, so the prompts are drawn with this and an unbiased bounded draw of our own,
// the same on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), n >= 1, by rejection of the short last interval.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit =
        std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
    for (;;) {
      const std::uint64_t x = next();
      if (x < limit) return x % n;
    }
  }

 private:
  std::uint64_t s_;
};

std::int32_t argmax(std::span<const float> logits) {
  std::size_t best = 0;  // lowest index wins ties, as llama2.c's sampler
  for (std::size_t i = 1; i < logits.size(); ++i)
    if (logits[i] > logits[best]) best = i;
  return static_cast<std::int32_t>(best);
}

ReplayConfig full_cache() { return parse_config("fp32", "full", 16); }

void validate(const ProbeOptions& o) {
  if (o.span < 2)
    throw Error(kSource, "span", "needs at least 2 tokens, got " + std::to_string(o.span));
  if (o.cue < 1 || o.cue >= o.span)
    throw Error(kSource, "cue",
                "must be in [1, span - 1] = [1, " + std::to_string(o.span - 1) + "], got " +
                    std::to_string(o.cue));
  if (o.prompts < 1) throw Error(kSource, "prompts", "needs at least 1 prompt, got 0");
  if (!(o.depth >= 0 && o.depth <= 1))
    throw Error(kSource, "depth", "must be in [0, 1], got " + std::to_string(o.depth));
}

}  // namespace

ProbeKind parse_probe_kind(const std::string& s) {
  if (s == "copy") return ProbeKind::copy;
  if (s == "needle") return ProbeKind::needle;
  throw Error("--probe", "probe", "must be copy or needle, got '" + s + "'");
}

FillerKind parse_filler_kind(const std::string& s) {
  if (s == "story") return FillerKind::story;
  if (s == "random") return FillerKind::random;
  throw Error("--probe-filler-kind", "filler", "must be story or random, got '" + s + "'");
}

std::string to_string(ProbeKind k) { return k == ProbeKind::copy ? "copy" : "needle"; }
std::string to_string(FillerKind k) { return k == FillerKind::story ? "story" : "random"; }

std::vector<std::int32_t> probe_candidates(std::uint32_t vocab, std::int32_t bos,
                                           std::int32_t eos) {
  std::vector<std::int32_t> c;
  for (std::uint32_t t = 1; t < vocab; ++t) {
    const auto id = static_cast<std::int32_t>(t);
    if (id != bos && id != eos) c.push_back(id);
  }
  return c;
}

const std::string& probe_story_text() {
  // Written for kvplan, in the plain style of the TinyStories data the test models learned from.
  static const std::string text =
      "Tom was a small boy who lived in a little house near the woods. Every morning he went out "
      "to play with his dog, Max. Max was brown and very fast. One day Tom and Max found a big "
      "red ball under a tree. Tom threw the ball and Max ran after it. The ball rolled down the "
      "hill and into the pond. Max jumped into the water and swam to the ball. He brought it "
      "back to Tom and shook the water off his fur. Tom laughed and said, thank you, Max. Then "
      "the sun went behind a cloud and it began to rain. Tom and Max ran home as fast as they "
      "could. Mom gave Tom a warm towel and a cup of milk. She gave Max a bone. Tom sat by the "
      "window and watched the rain fall on the garden. He saw a bird sitting on the fence. The "
      "bird was wet and sad. Tom wanted to help the bird. He put some bread on the window and "
      "the bird came to eat it. The bird sang a happy song. When the rain stopped, the sky was "
      "blue again and there was a rainbow over the woods. Tom and Max went outside to look at "
      "it. They played in the grass until it was time for dinner. That night Tom went to bed "
      "and dreamed of the red ball, the bird and the rainbow. He was very happy.";
  return text;
}

std::vector<std::int32_t> probe_story_tokens(const Tokenizer& tok,
                                             std::span<const std::int32_t> candidates) {
  const std::unordered_set<std::int32_t> ok(candidates.begin(), candidates.end());
  std::vector<std::int32_t> out;
  for (std::int32_t t : tok.encode(probe_story_text(), false, false))
    if (ok.count(t)) out.push_back(t);
  return out;
}

ProbePrompt make_probe_prompt(const ProbeOptions& o, std::uint32_t i,
                              std::span<const std::int32_t> candidates,
                              std::span<const std::int32_t> story, std::int32_t bos,
                              std::uint32_t seq_len, bool control) {
  validate(o);
  // One stream per prompt, from the seed and the prompt's index.
  Rng rng(Rng(o.seed).next() ^ (0xd1b54a32d192ed03ULL * (std::uint64_t{i} + 1)));
  if (candidates.empty()) throw Error(kSource, "span", "the vocabulary has no candidate tokens");
  std::vector<std::int32_t> filler(o.filler);
  if (o.filler_kind == FillerKind::story) {
    if (story.empty() && o.filler > 0)
      throw Error(kSource, "filler", "the story filler encodes to no usable tokens");
    const std::uint64_t start = story.empty() ? 0 : rng.below(story.size());
    for (std::uint32_t j = 0; j < o.filler; ++j) filler[j] = story[(start + j) % story.size()];
  } else {
    for (auto& t : filler) t = candidates[rng.below(candidates.size())];
  }
  // The span and the control's replacement: 2·S distinct candidates that occur nowhere in the
  // filler (a partial Fisher-Yates shuffle, drawn the same way for the prompt and its control).
  const std::unordered_set<std::int32_t> in_filler(filler.begin(), filler.end());
  std::vector<std::int32_t> pool;
  for (std::int32_t t : candidates)
    if (!in_filler.count(t)) pool.push_back(t);
  const std::size_t need = 2 * std::size_t{o.span};
  if (pool.size() < need)
    throw Error(kSource, "span",
                std::to_string(o.span) + " tokens (and as many for the control) need " +
                    std::to_string(need) + " tokens absent from the filler, the vocabulary has " +
                    std::to_string(pool.size()));
  for (std::size_t j = 0; j < need; ++j) std::swap(pool[j], pool[j + rng.below(pool.size() - j)]);
  ProbePrompt p;
  p.span.assign(pool.begin(), pool.begin() + o.span);
  const std::span<const std::int32_t> first =
      control ? std::span<const std::int32_t>(pool.data() + o.span, o.span)
              : std::span<const std::int32_t>(p.span);

  const std::uint64_t before = o.kind == ProbeKind::needle
                                   ? static_cast<std::uint64_t>(std::llround(o.depth * o.filler))
                                   : 0;
  const std::uint64_t repeat = o.kind == ProbeKind::copy ? o.span : o.cue;
  // Positions the model runs: the prompt, plus (needle) the continuation fed back but the last.
  const std::uint64_t len =
      add(add(1 + std::uint64_t{o.span}, o.filler, "probe prompt"), repeat, "probe prompt");
  const std::uint64_t run = o.kind == ProbeKind::copy ? len - 1 : len + (o.span - o.cue) - 1;
  if (run > seq_len)
    throw Error(kSource, "filler",
                "the prompt runs " + std::to_string(run) +
                    " positions, past the model's context of " + std::to_string(seq_len) +
                    " (shorten filler or span)");
  p.tokens.reserve(len);
  p.tokens.push_back(bos);
  p.tokens.insert(p.tokens.end(), filler.begin(),
                  filler.begin() + static_cast<std::ptrdiff_t>(before));
  p.span_begin = p.tokens.size();
  p.tokens.insert(p.tokens.end(), first.begin(), first.end());
  p.tokens.insert(p.tokens.end(), filler.begin() + static_cast<std::ptrdiff_t>(before),
                  filler.end());
  p.repeat_begin = p.tokens.size();
  p.tokens.insert(p.tokens.end(), p.span.begin(),
                  p.span.begin() + static_cast<std::ptrdiff_t>(repeat));
  return p;
}

bool above_chance(std::uint64_t correct, std::uint64_t scored, std::uint64_t chance_correct,
                  std::uint64_t chance_scored) {
  if (scored == 0 || chance_scored == 0) return false;
  const double a = static_cast<double>(correct) / static_cast<double>(scored);
  const double c = static_cast<double>(chance_correct) / static_cast<double>(chance_scored);
  const double se = std::sqrt(a * (1 - a) / static_cast<double>(scored) +
                              c * (1 - c) / static_cast<double>(chance_scored));
  return a - c > std::max(0.05, 2 * se);
}

// ----------------------------------------------------------------------------- running

namespace {

// The kernels' cache of one configuration, plus (needle) at one position the needle positions it
// retains and the mass a float32 full-cache shadow, fed the same q, k, v, puts on them.
class NeedleAttention final : public AttentionBackend {
 public:
  NeedleAttention(KernelAttention& k, const Llama2cModel& m, std::uint64_t at,
                  std::uint64_t needle_begin, std::uint32_t needle_len)
      : kern_(k),
        shadow_(m),
        at_(at),
        nb_(needle_begin),
        nl_(needle_len),
        hq_(m.config().n_heads),
        hkv_(m.config().n_kv_heads),
        out_(std::size_t{hq_} * m.config().head_size()),
        retained_(m.config().n_layers),
        all_retained_(m.config().n_layers),
        mass_(m.config().n_layers) {}
  void attend(std::uint32_t layer, std::uint64_t pos, std::span<const float> q,
              std::span<const float> k, std::span<const float> v, std::span<float> out) override {
    kern_.attend(layer, pos, q, k, v, out);
    if (pos < at_) {
      shadow_.append(layer, pos, k, v);
    } else if (pos == at_) {
      shadow_.attend(layer, pos, q, k, v, out_);
      measure(layer);
    }
  }
  double retained(std::uint32_t l) const { return retained_[l]; }
  bool all_retained(std::uint32_t l) const { return all_retained_[l]; }
  double mass(std::uint32_t l) const { return mass_[l]; }

 private:
  bool in_needle(std::int32_t p) const {
    return p >= 0 && static_cast<std::uint64_t>(p) >= nb_ &&
           static_cast<std::uint64_t>(p) < nb_ + nl_;
  }
  void measure(std::uint32_t layer) {
    std::uint64_t kept = 0;
    bool all = true;
    for (std::uint32_t h = 0; h < hkv_; ++h) {
      std::uint64_t n = 0;
      for (std::int32_t p : kern_.positions(layer, h)) n += in_needle(p) ? 1 : 0;
      kept += n;
      all = all && n == nl_;
    }
    retained_[layer] = static_cast<double>(kept) / (static_cast<double>(hkv_) * nl_);
    all_retained_[layer] = all;
    double m = 0;
    const std::uint32_t group = hq_ / hkv_;
    for (std::uint32_t h = 0; h < hq_; ++h) {
      const auto probs = shadow_.last_probs(h);
      for (std::int32_t p : kern_.positions(layer, h / group))
        if (in_needle(p)) m += probs[static_cast<std::size_t>(p)];
    }
    mass_[layer] = m / hq_;
  }
  KernelAttention& kern_;
  ReferenceAttention shadow_;
  std::uint64_t at_, nb_;
  std::uint32_t nl_, hq_, hkv_;
  std::vector<float> out_;
  std::vector<double> retained_;
  std::vector<bool> all_retained_;
  std::vector<double> mass_;
};

KernelAttention make_cache(const Llama2cModel& m, const ReplayConfig& cfg, kernels::Backend b,
                           std::uint64_t prefill) {
  const auto& c = m.config();
  return KernelAttention(cfg, c.n_layers, c.n_heads, c.n_kv_heads, c.head_size(), m.rope(), b,
                         prefill, kSource);
}

// Copy: greedy predictions at repeat positions k-1 .. S-2 (teacher-forced), into r.
void run_copy(Llama2cRunner& run, const Llama2cModel& m, const ReplayConfig& cfg,
              const ProbePrompt& p, const ProbeOptions& o, kernels::Backend b, ProbeResult& r) {
  const std::uint64_t first = p.repeat_begin + o.cue - 1;
  // SnapKV compresses the prompt up to the cue; the scored continuation runs on the result.
  KernelAttention cache = make_cache(m, cfg, b, first + 1);
  for (std::uint64_t pos = 0; pos + 1 < p.tokens.size(); ++pos) {
    const auto logits = run.forward(p.tokens[pos], pos, cache);
    if (pos < first) continue;
    ++r.scored;
    r.correct += argmax(logits) == p.tokens[pos + 1] ? 1 : 0;
  }
}

// Needle: the prompt, then L-k greedy tokens; retention and mass at the question's last token.
void run_needle(Llama2cRunner& run, const Llama2cModel& m, const ReplayConfig& cfg,
                const ProbePrompt& p, const ProbeOptions& o, kernels::Backend b, ProbeResult& r) {
  const std::uint64_t at = p.tokens.size() - 1;
  KernelAttention cache = make_cache(m, cfg, b, p.tokens.size());
  NeedleAttention attn(cache, m, at, p.span_begin, o.span);
  std::span<const float> logits;
  for (std::uint64_t pos = 0; pos <= at; ++pos) logits = run.forward(p.tokens[pos], pos, attn);
  std::uint64_t ok = 0;
  const std::uint32_t rest = o.span - o.cue;
  for (std::uint32_t j = 0; j < rest; ++j) {
    const std::int32_t t = argmax(logits);
    ok += t == p.span[o.cue + j] ? 1 : 0;
    if (j + 1 < rest) logits = run.forward(t, at + 1 + j, attn);
  }
  r.correct += ok;
  r.scored += rest;
  r.reproduced += ok == rest ? 1 : 0;
  const std::uint32_t L = m.config().n_layers;
  r.layer_retained.resize(L);
  r.layer_all_retained.resize(L);
  r.layer_mass.resize(L);
  for (std::uint32_t l = 0; l < L; ++l) {
    r.layer_retained[l] += attn.retained(l);
    r.layer_all_retained[l] += attn.all_retained(l) ? 1 : 0;
    r.layer_mass[l] += attn.mass(l);
  }
}

}  // namespace

ProbeReport run_probe(const Llama2cModel& model, const Tokenizer& tok,
                      const std::vector<ReplayConfig>& configs, const ProbeOptions& o,
                      kernels::Backend backend,
                      const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  validate(o);
  const auto& c = model.config();
  const auto candidates = probe_candidates(c.vocab_size, tok.bos_id(), tok.eos_id());
  const auto story = o.filler_kind == FillerKind::story ? probe_story_tokens(tok, candidates)
                                                        : std::vector<std::int32_t>{};
  // A llama2.c tokenizer always has BOS 1; a Hugging Face one without BOS starts at its first
  // candidate (the model has no BOS to be given).
  const std::int32_t bos = tok.bos_id() >= 0 ? tok.bos_id() : candidates.at(0);
  std::vector<ProbePrompt> prompts, controls;
  for (std::uint32_t i = 0; i < o.prompts; ++i) {
    prompts.push_back(make_probe_prompt(o, i, candidates, story, bos, c.seq_len, false));
    controls.push_back(make_probe_prompt(o, i, candidates, story, bos, c.seq_len, true));
  }

  ProbeReport rep;
  rep.source = model.path();
  rep.model = model.spec().id;
  rep.options = o;
  rep.prompt_tokens = prompts.front().tokens.size();
  rep.layers = c.n_layers;
  std::vector<ReplayConfig> all = {full_cache()};
  all.insert(all.end(), configs.begin(), configs.end());
  // Every configuration's spec against this model first (a KIVI group that does not divide the
  // head dim...), so bad input fails before any prompt runs.
  for (const auto& cfg : all) (void)make_cache(model, cfg, backend, 1);
  const std::uint64_t total = std::uint64_t{o.prompts} * (all.size() + 1);
  std::uint64_t done = 0;
  Llama2cRunner run(model);
  const auto one = [&](const ReplayConfig& cfg, const ProbePrompt& p, ProbeResult& r) {
    if (o.kind == ProbeKind::copy)
      run_copy(run, model, cfg, p, o, backend, r);
    else
      run_needle(run, model, cfg, p, o, backend, r);
    if (progress) progress(++done, total);
  };
  const auto finish = [&](ProbeResult& r) {
    r.accuracy = r.scored ? static_cast<double>(r.correct) / static_cast<double>(r.scored) : 0;
    for (auto* v : {&r.layer_retained, &r.layer_all_retained, &r.layer_mass})
      for (double& x : *v) x /= o.prompts;
  };

  for (std::size_t ci = 0; ci < all.size(); ++ci) {
    ProbeResult r;
    r.config = all[ci];
    r.label = label(all[ci]);
    for (const auto& p : prompts) one(all[ci], p, r);
    finish(r);
    rep.results.push_back(std::move(r));
    if (ci == 0) {
      ProbeResult ctl;
      for (const auto& p : controls) one(all[0], p, ctl);
      finish(ctl);
      rep.chance_correct = ctl.correct;
      rep.chance_scored = ctl.scored;
      rep.chance_accuracy = ctl.accuracy;
    }
  }
  for (auto& r : rep.results) r.delta = r.accuracy - rep.results[0].accuracy;
  rep.model_can_do = above_chance(rep.results[0].correct, rep.results[0].scored, rep.chance_correct,
                                  rep.chance_scored);
  return rep;
}

ProbeReport run_probe(const ProbeRequest& r) {
  if (r.checkpoint.empty())
    throw Error("command line", "checkpoint", "the probe needs --checkpoint");
  const auto model = Llama2cModel::load(r.checkpoint);
  const auto tok = Tokenizer::load(tokenizer_for(model, r.tokenizer), model.config().vocab_size);
  return run_probe(model, tok, r.configs, r.options, r.backend, r.progress);
}

namespace {
double measured_mean(const std::vector<double>& v) {
  double s = 0;
  std::size_t n = 0;
  for (double x : v)
    if (!std::isnan(x)) {
      s += x;
      ++n;
    }
  return n ? s / static_cast<double>(n) : std::nan("");
}
}  // namespace

double ProbeResult::mean_retained() const { return measured_mean(layer_retained); }
double ProbeResult::mean_mass() const { return measured_mean(layer_mass); }

}  // namespace kvplan::sim

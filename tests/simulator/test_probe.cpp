// Retrieval probes (copy and needle): prompt layout, the chance verdict, and on both real models
// determinism, needle retention under a window (derived by hand from positions) and the full
// cache keeping the needle everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "kvplan/error.hpp"
#include "kvplan/sim/probe.hpp"
#include "test_model_dir.hpp"

namespace kvplan::sim {
namespace {

// A vocabulary of 40 with BOS 1, EOS 2: candidates are 3..39 (id 0 and both specials left out).
std::vector<std::int32_t> small_candidates() { return probe_candidates(40, 1, 2); }

TEST(ProbePrompt, CandidatesLeaveOutUnkBosAndEos) {
  const auto c = small_candidates();
  ASSERT_EQ(c.size(), 37u);
  EXPECT_EQ(c.front(), 3);
  EXPECT_EQ(c.back(), 39);
}

TEST(ProbePrompt, CopyLayoutSpanFillerRepeat) {
  const ProbeOptions o{.kind = ProbeKind::copy,
                       .span = 4,
                       .cue = 1,
                       .filler = 6,
                       .seed = 3,
                       .filler_kind = FillerKind::random};
  const auto c = small_candidates();
  const ProbePrompt p = make_probe_prompt(o, 0, c, {}, 1, 64);
  // BOS (1) + span (4) + filler (6) + span again (4) = 15 tokens; span at 1, repeat at 11.
  ASSERT_EQ(p.tokens.size(), 15u);
  EXPECT_EQ(p.tokens[0], 1);
  EXPECT_EQ(p.span_begin, 1u);
  EXPECT_EQ(p.repeat_begin, 11u);
  ASSERT_EQ(p.span.size(), 4u);
  const std::set<std::int32_t> span(p.span.begin(), p.span.end());
  EXPECT_EQ(span.size(), 4u) << "span tokens are distinct";
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(p.tokens[1 + j], p.span[j]);
    EXPECT_EQ(p.tokens[11 + j], p.span[j]);
  }
  for (int j = 5; j < 11; ++j) {
    EXPECT_FALSE(span.count(p.tokens[j])) << "filler token at " << j << " is in the span";
    EXPECT_GE(p.tokens[j], 3);
  }
  for (std::int32_t t : p.span) EXPECT_GE(t, 3) << "span avoids <unk>, BOS, EOS";
  // Same seed and index: the same prompt; another index: another span.
  EXPECT_EQ(make_probe_prompt(o, 0, c, {}, 1, 64).tokens, p.tokens);
  EXPECT_NE(make_probe_prompt(o, 1, c, {}, 1, 64).span, p.span);
}

TEST(ProbePrompt, ControlReplacesOnlyTheFirstOccurrence) {
  const ProbeOptions o{.kind = ProbeKind::copy,
                       .span = 4,
                       .cue = 2,
                       .filler = 6,
                       .seed = 9,
                       .filler_kind = FillerKind::random};
  const auto c = small_candidates();
  const ProbePrompt p = make_probe_prompt(o, 2, c, {}, 1, 64);
  const ProbePrompt q = make_probe_prompt(o, 2, c, {}, 1, 64, true);
  ASSERT_EQ(q.tokens.size(), p.tokens.size());
  EXPECT_EQ(q.span, p.span) << "the control scores the same span";
  for (std::size_t j = 0; j < p.tokens.size(); ++j) {
    if (j >= 1 && j < 5) {
      const bool in_span = std::find(p.span.begin(), p.span.end(), q.tokens[j]) != p.span.end();
      EXPECT_FALSE(in_span) << "control position " << j << " still holds a span token";
    } else {
      EXPECT_EQ(q.tokens[j], p.tokens[j]) << "position " << j;
    }
  }
}

TEST(ProbePrompt, NeedleLayoutAtDepth) {
  // Story filler 10..29 cycled; needle of 3 at depth 0.5 of 6 filler tokens: 3 before it.
  std::vector<std::int32_t> story;
  for (int t = 10; t < 30; ++t) story.push_back(t);
  const ProbeOptions o{.kind = ProbeKind::needle, .span = 3, .cue = 1, .filler = 6, .depth = 0.5};
  const ProbePrompt p = make_probe_prompt(o, 0, small_candidates(), story, 1, 64);
  // BOS, 3 filler, needle at 4..6, 3 filler, question (1 token) at 10: 11 tokens.
  ASSERT_EQ(p.tokens.size(), 11u);
  EXPECT_EQ(p.span_begin, 4u);
  EXPECT_EQ(p.repeat_begin, 10u);
  EXPECT_EQ(p.tokens[10], p.span[0]);
  for (int j = 0; j < 3; ++j) EXPECT_EQ(p.tokens[4 + j], p.span[j]);
  // The filler is consecutive story tokens (cyclic), across the needle.
  const std::vector<int> fill = {1, 2, 3, 7, 8, 9};
  for (std::size_t j = 1; j < fill.size(); ++j) {
    const int a = p.tokens[fill[j - 1]], b = p.tokens[fill[j]];
    EXPECT_EQ(b, a == 29 ? 10 : a + 1) << "filler at " << fill[j];
  }
}

TEST(ProbePrompt, BadOptionsNameTheField) {
  const auto c = small_candidates();
  const auto field = [&](ProbeOptions o, std::uint32_t seq_len) {
    o.filler_kind = FillerKind::random;
    try {
      make_probe_prompt(o, 0, c, {}, 1, seq_len);
    } catch (const Error& e) {
      return e.field();
    }
    return std::string("no error");
  };
  EXPECT_EQ(field({.span = 4, .cue = 0, .filler = 4}, 64), "cue");
  EXPECT_EQ(field({.span = 4, .cue = 4, .filler = 4}, 64), "cue");
  EXPECT_EQ(field({.span = 1, .cue = 1, .filler = 4}, 64), "span");
  EXPECT_EQ(field({.kind = ProbeKind::needle, .span = 4, .cue = 1, .filler = 4, .depth = 1.5}, 64),
            "depth");
  // 37 candidates cannot give 2 x 20 distinct tokens.
  EXPECT_EQ(field({.span = 20, .cue = 1, .filler = 0}, 64), "span");
  // Copy: 1 + 4 + 20 + 4 = 29 tokens run 28 positions: fits 28, not 27.
  EXPECT_EQ(field({.span = 4, .cue = 1, .filler = 20}, 28), "no error");
  EXPECT_EQ(field({.span = 4, .cue = 1, .filler = 20}, 27), "filler");
  // Needle: 1 + 20 + 4 + 1 = 26 tokens, then 2 more fed back: 28 positions.
  EXPECT_EQ(field({.kind = ProbeKind::needle, .span = 4, .cue = 1, .filler = 20}, 28), "no error");
  EXPECT_EQ(field({.kind = ProbeKind::needle, .span = 4, .cue = 1, .filler = 20}, 27), "filler");
  EXPECT_THROW(parse_probe_kind("copies"), Error);
  EXPECT_THROW(parse_filler_kind("lorem"), Error);
}

TEST(ProbeChance, AboveChanceByHand) {
  // 0.40 vs 0.20 over 100 each: 0.20 > 2·sqrt(.4·.6/100 + .2·.8/100) = 2·0.0632 = 0.126.
  EXPECT_TRUE(above_chance(40, 100, 20, 100));
  // 0.30 vs 0.20: 0.10 < 2·sqrt(.0021 + .0016) = 0.122.
  EXPECT_FALSE(above_chance(30, 100, 20, 100));
  // 0.26 vs 0.22 over 1000 each: 2·SE = 2·sqrt(.0001924 + .0001716) = 0.038 < 0.04, but the
  // 0.05 floor holds it back.
  EXPECT_FALSE(above_chance(260, 1000, 220, 1000));
  EXPECT_TRUE(above_chance(280, 1000, 220, 1000));  // 0.06 > max(0.05, 0.038)
  // Worse than chance, or nothing scored, is never above it.
  EXPECT_FALSE(above_chance(10, 100, 50, 100));
  EXPECT_FALSE(above_chance(0, 0, 0, 0));
}

TEST(ProbeChance, ReportSaysTheModelCannotDoItInsteadOfNoise) {
  ProbeReport r;
  r.options = {.kind = ProbeKind::copy, .span = 8, .cue = 2, .filler = 16, .prompts = 10};
  r.source = "hand";
  r.model = "hand";
  r.prompt_tokens = 33;
  ProbeResult full, win;
  full.config = parse_config("fp32", "full", 16);
  win.config = parse_config("fp16", "streaming:sink=4,window=8", 16);
  // 60 predictions each: full 9/60 = 0.15, chance 8/60 = 0.133 (a hand-made tie with chance).
  full.correct = 9;
  full.scored = 60;
  full.accuracy = 0.15;
  win.correct = 5;
  win.scored = 60;
  win.accuracy = 5.0 / 60;
  win.delta = win.accuracy - full.accuracy;
  r.results = {full, win};
  r.chance_correct = 8;
  r.chance_scored = 60;
  r.chance_accuracy = 8.0 / 60;
  r.model_can_do = above_chance(9, 60, 8, 60);
  ASSERT_FALSE(r.model_can_do);
  const std::string text = render(r, OutputFormat::table);
  EXPECT_NE(text.find("the model cannot do this task; the probe shows nothing for it"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("streaming"), std::string::npos) << "a configuration's noise is shown\n"
                                                       << text;
  // Beating chance (40/60 = 0.667 vs 0.133) shows every configuration and its difference.
  r.results[0].correct = 40;
  r.results[0].accuracy = 40.0 / 60;
  r.results[1].delta = r.results[1].accuracy - r.results[0].accuracy;
  r.model_can_do = above_chance(40, 60, 8, 60);
  ASSERT_TRUE(r.model_can_do);
  const std::string ok = render(r, OutputFormat::table);
  EXPECT_EQ(ok.find("cannot do"), std::string::npos);
  EXPECT_NE(ok.find("streaming:sink=4,window=8"), std::string::npos) << ok;
  EXPECT_NE(ok.find("-0.583"), std::string::npos) << ok;  // 5/60 - 40/60 = -0.5833
}

// ------------------------------------------------------------------------ on the real models

struct Model {
  Llama2cModel model;
  Tokenizer tok;
};

Model load(bool hf) {
  auto m = Llama2cModel::load(hf ? test::hf_model_dir() : test::checkpoint_path());
  auto t =
      Tokenizer::load(hf ? test::hf_model_dir() : test::tokenizer_path(), m.config().vocab_size);
  return {std::move(m), std::move(t)};
}

void deterministic_full_cache(bool hf) {
  const Model m = load(hf);
  const ProbeOptions o{
      .kind = ProbeKind::copy, .span = 8, .cue = 2, .filler = 64, .prompts = 3, .seed = 11};
  const ProbeReport a = run_probe(m.model, m.tok, {}, o);
  const ProbeReport b = run_probe(m.model, m.tok, {}, o);
  ASSERT_EQ(a.results.size(), 1u);
  EXPECT_EQ(a.results[0].label, "fp32 | full | S=16");
  // 3 prompts x (8 - 2) predictions; 1 + 8 + 64 + 8 tokens each.
  EXPECT_EQ(a.results[0].scored, 18u);
  EXPECT_EQ(a.prompt_tokens, 81u);
  EXPECT_EQ(a.results[0].correct, b.results[0].correct);
  EXPECT_EQ(a.chance_correct, b.chance_correct);
  EXPECT_EQ(a.chance_scored, 18u);
  EXPECT_EQ(render(a, OutputFormat::json), render(b, OutputFormat::json));
}

TEST(ProbeModel, FullCacheCopyIsDeterministicForASeedStories260K) {
  KVPLAN_REQUIRE_MODEL();
  deterministic_full_cache(false);
}
TEST(ProbeModel, FullCacheCopyIsDeterministicForASeedTinyStories656K) {
  KVPLAN_REQUIRE_HF_MODEL();
  deterministic_full_cache(true);
}

void needle_retention(bool hf) {
  const Model m = load(hf);
  const std::uint32_t L = m.model.config().n_layers;
  // Needle of 8 at depth 0.25 of 128 filler tokens: BOS, filler 1..32, needle 33..40, filler
  // 41..136, question (2 tokens) 137..138. At P = 138, streaming keeps sinks 0..3 and the last
  // `window` positions 139 - window .. 138:
  //   window 32: 107..138, no needle token (distance from the needle's end to P is 98);
  //   window 103: 36..138, needle tokens 36..40 = 5 of 8 in every KV head.
  const ProbeOptions o{.kind = ProbeKind::needle,
                       .span = 8,
                       .cue = 2,
                       .filler = 128,
                       .depth = 0.25,
                       .prompts = 2,
                       .seed = 5};
  const std::vector<ReplayConfig> cfgs = {parse_config("fp16", "streaming:sink=4,window=32", 16),
                                          parse_config("fp16", "streaming:sink=4,window=103", 16),
                                          parse_config("fp32", "full", 16)};
  const ProbeReport r = run_probe(m.model, m.tok, cfgs, o);
  ASSERT_EQ(r.results.size(), 4u);
  EXPECT_EQ(r.prompt_tokens, 139u);
  const auto& full = r.results[0];
  const auto& gone = r.results[1];
  const auto& part = r.results[2];
  ASSERT_EQ(full.layer_retained.size(), L);
  for (std::uint32_t l = 0; l < L; ++l) {
    EXPECT_EQ(full.layer_retained[l], 1.0) << "layer " << l;
    EXPECT_EQ(full.layer_all_retained[l], 1.0) << "layer " << l;
    EXPECT_GT(full.layer_mass[l], 0.0) << "layer " << l;
    EXPECT_LE(full.layer_mass[l], 1.0 + 1e-6) << "layer " << l;
    EXPECT_EQ(gone.layer_retained[l], 0.0) << "layer " << l;
    EXPECT_EQ(gone.layer_all_retained[l], 0.0) << "layer " << l;
    EXPECT_EQ(gone.layer_mass[l], 0.0) << "layer " << l;
    EXPECT_DOUBLE_EQ(part.layer_retained[l], 5.0 / 8) << "layer " << l;
    EXPECT_EQ(part.layer_all_retained[l], 0.0) << "layer " << l;
  }
  // 2 prompts x (8 - 2) continuation tokens per configuration.
  EXPECT_EQ(full.scored, 12u);
  EXPECT_EQ(r.chance_scored, 12u);
  // The same configuration as the baseline, run again, gives the same figures.
  EXPECT_EQ(r.results[3].correct, full.correct);
  EXPECT_EQ(r.results[3].layer_mass, full.layer_mass);
  EXPECT_EQ(r.results[3].delta, 0.0);
}

TEST(ProbeModel, NeedleRetentionUnderAWindowByHandStories260K) {
  KVPLAN_REQUIRE_MODEL();
  needle_retention(false);
}
TEST(ProbeModel, NeedleRetentionUnderAWindowByHandTinyStories656K) {
  KVPLAN_REQUIRE_HF_MODEL();
  needle_retention(true);
}

TEST(ProbeModel, RequestNeedsATokenizerForALlama2cCheckpoint) {
  KVPLAN_REQUIRE_MODEL();
  ProbeRequest r;
  r.checkpoint = test::checkpoint_path();
  try {
    run_probe(r);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "tokenizer");
  }
}

TEST(ProbeModel, ABadConfigurationFailsBeforeAnyPromptRuns) {
  KVPLAN_REQUIRE_MODEL();
  const Model m = load(false);
  // stories260K's head dim is 8: a KIVI group of 16 channels cannot divide it.
  std::uint64_t runs = 0;
  EXPECT_THROW(
      run_probe(m.model, m.tok, {parse_config("kivi:bits=2,group=16,residual=32", "full", 16)},
                {.span = 8, .cue = 2, .filler = 16, .prompts = 2}, kernels::Backend::cpu,
                [&](std::uint64_t, std::uint64_t) { ++runs; }),
      Error);
  EXPECT_EQ(runs, 0u);
}

}  // namespace
}  // namespace kvplan::sim

namespace kvplan::sim {
namespace {
// The means over layers the GUI shows skip a layer that was not measured (NaN).
TEST(Probe, LayerMeansSkipUnmeasuredLayers) {
  ProbeResult r;
  r.layer_retained = {1.0, 0.5, std::nan("")};  // (1 + 0.5) / 2
  r.layer_mass = {std::nan(""), std::nan("")};
  EXPECT_DOUBLE_EQ(r.mean_retained(), 0.75);
  EXPECT_TRUE(std::isnan(r.mean_mass()));
}
}  // namespace
}  // namespace kvplan::sim

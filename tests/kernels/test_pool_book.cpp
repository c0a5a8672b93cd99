// One paged-KV bookkeeping (PagedKvBook) for the CPU and the CUDA pool. A book driven with a
// storage that holds no bytes and only records (what DevicePagedKv's storage does besides the
// copies) makes the same block decisions as the CPU pool for the same calls: the device pool,
// which runs the same book, hands out the same block ids without a GPU to prove it here. And the
// one KIVI append (by range) stores what token-by-token appends store.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "kvplan/kernels/paged_kv.hpp"
#include "kvplan/kv_format.hpp"

namespace kvplan::kernels {
namespace {

// Records every call the book makes; stores nothing.
struct RecordingStorage final : PagedKvStorage {
  std::vector<std::string> calls;
  Status grow(KvArena a, std::uint32_t old_blocks, std::uint32_t new_blocks) override {
    calls.push_back("grow " + std::to_string(static_cast<int>(a)) + " " +
                    std::to_string(old_blocks) + "->" + std::to_string(new_blocks));
    return Status::Ok();
  }
  Status write_plain(const LayerBook&, std::uint32_t n0, std::uint32_t m, const float*,
                     const float*) override {
    calls.push_back("plain " + std::to_string(n0) + "+" + std::to_string(m));
    return Status::Ok();
  }
  Status kivi_quantize_keys(const LayerBook&, std::uint32_t kq0, std::uint32_t kq1, std::uint32_t,
                            const float*) override {
    calls.push_back("keys " + std::to_string(kq0) + ".." + std::to_string(kq1));
    return Status::Ok();
  }
  Status kivi_write_residual(const LayerBook&, std::uint32_t r0, std::uint32_t N, std::uint32_t,
                             std::uint32_t, const float*) override {
    calls.push_back("residual " + std::to_string(r0) + ".." + std::to_string(N));
    return Status::Ok();
  }
  Status kivi_quantize_values(const LayerBook&, std::uint32_t vq0, std::uint32_t vq1, std::uint32_t,
                              const float*) override {
    calls.push_back("values " + std::to_string(vq0) + ".." + std::to_string(vq1));
    return Status::Ok();
  }
  Status kivi_write_window(const LayerBook&, std::uint32_t w0, std::uint32_t N, std::uint32_t,
                           const float*) override {
    calls.push_back("window " + std::to_string(w0) + ".." + std::to_string(N));
    return Status::Ok();
  }
  Status move_kept(const LayerBook&, const KeepSet&) override { return Status::Ok(); }
};

struct BookCase {
  std::string format;
  std::uint32_t block_size;
};

class PoolBook : public ::testing::TestWithParam<BookCase> {
 protected:
  PoolConfig config() const {
    return {.format = parse_kv_format(GetParam().format),
            .num_layers = 2,
            .num_kv_heads = 2,
            .head_dim = 32,
            .block_size = GetParam().block_size};
  }
};

std::vector<float> values(std::uint64_t n, float seed) {
  std::vector<float> v(n);
  for (std::uint64_t i = 0; i < n; ++i)
    v[i] = static_cast<float>((i * 2654435761u + static_cast<std::uint64_t>(seed * 1000)) % 2001) /
               1000.f -
           1.f;
  return v;
}

void expect_same_books(const PagedKvBook& a, const PagedKvBook& b,
                       const std::vector<std::uint32_t>& seqs, std::uint32_t layers) {
  for (KvArena x : {KvArena::k, KvArena::v, KvArena::kr, KvArena::vw})
    EXPECT_EQ(a.capacity(x), b.capacity(x)) << "arena " << static_cast<int>(x);
  for (std::uint32_t s : seqs)
    for (std::uint32_t l = 0; l < layers; ++l) {
      ASSERT_TRUE(a.check(s, l).ok() && b.check(s, l).ok());
      EXPECT_EQ(a.layer(s, l).n, b.layer(s, l).n);
      for (KvArena x : {KvArena::k, KvArena::v, KvArena::kr, KvArena::vw})
        EXPECT_EQ(a.layer(s, l).table(x), b.layer(s, l).table(x))
            << "seq " << s << " layer " << l << " arena " << static_cast<int>(x);
    }
  EXPECT_EQ(a.bytes_held(), b.bytes_held());
  EXPECT_EQ(a.blocks_in_use(), b.blocks_in_use());
  EXPECT_EQ(a.bytes_reserved(), b.bytes_reserved());
}

TEST_P(PoolBook, ABookWithoutStorageMakesThePoolsBlockDecisions) {
  const PoolConfig cfg = config();
  const std::uint32_t H = cfg.num_kv_heads, d = cfg.head_dim;
  const bool kivi = cfg.format.dtype == KvDtype::kivi;
  PagedKvPool pool;
  PagedKvBook book;
  RecordingStorage rec;
  ASSERT_TRUE(pool.init(cfg).ok());
  ASSERT_TRUE(book.init(cfg, rec).ok());
  std::vector<std::uint32_t> seqs;
  for (int i = 0; i < 3; ++i) {
    seqs.push_back(pool.add_sequence());
    ASSERT_EQ(book.add_sequence(), seqs.back());
  }
  // Prefills and decode steps interleaved over sequences and layers (KIVI chunks crossed), a
  // compaction, a freed sequence whose blocks the others take next.
  const std::uint32_t sizes[] = {70, 1, 61, 1, 1, 40, 129, 1, 3};
  for (std::uint32_t step = 0; step < std::size(sizes); ++step)
    for (std::uint32_t s : seqs)
      for (std::uint32_t l = 0; l < cfg.num_layers; ++l) {
        const std::uint32_t n = sizes[(step + s + l) % std::size(sizes)];
        const auto k = values(std::uint64_t{n} * H * d, step + s);
        const auto v = values(std::uint64_t{n} * H * d, step + l + 0.5f);
        ASSERT_TRUE(pool.append_tokens(s, l, n, k.data(), v.data()).ok());
        ASSERT_TRUE(book.append(s, l, n, k.data(), v.data(), nullptr, false, rec).ok());
      }
  expect_same_books(pool.book(), book, seqs, cfg.num_layers);
  if (!kivi) {
    KeepSet keep{.num_kv_heads = H, .count = 5, .slots = {}, .positions = {}};
    for (std::uint32_t h = 0; h < H; ++h)
      for (std::int32_t i : {0, 3, 17, 40, 99}) keep.slots.push_back(i + static_cast<int>(h));
    ASSERT_TRUE(pool.compact(seqs[1], 1, keep).ok());
    ASSERT_TRUE(book.compact(seqs[1], 1, keep, rec).ok());
  }
  ASSERT_TRUE(pool.free_sequence(seqs[0]).ok());
  ASSERT_TRUE(book.free_sequence(seqs[0], rec).ok());
  seqs.erase(seqs.begin());
  for (std::uint32_t s : seqs) {
    const auto k = values(std::uint64_t{200} * H * d, 9.f),
               v = values(std::uint64_t{200} * H * d, 3.f);
    ASSERT_TRUE(pool.append_tokens(s, 0, 200, k.data(), v.data()).ok());
    ASSERT_TRUE(book.append(s, 0, 200, k.data(), v.data(), nullptr, false, rec).ok());
  }
  expect_same_books(pool.book(), book, seqs, cfg.num_layers);
}

TEST_P(PoolBook, KiviAppendsByRangeStoreWhatTokenByTokenAppendsStore) {
  const PoolConfig cfg = config();
  if (cfg.format.dtype != KvDtype::kivi) GTEST_SKIP() << "KIVI only";
  const std::uint32_t H = cfg.num_kv_heads, d = cfg.head_dim, n = 300;
  const auto k = values(std::uint64_t{n} * H * d, 1.f), v = values(std::uint64_t{n} * H * d, 2.f);
  PagedKvPool bulk, single;
  ASSERT_TRUE(bulk.init(cfg).ok());
  ASSERT_TRUE(single.init(cfg).ok());
  const std::uint32_t a = bulk.add_sequence(), b = single.add_sequence();
  // 300 tokens as 170 + 130 (chunks completed inside one append) against one at a time.
  ASSERT_TRUE(bulk.append_tokens(a, 0, 170, k.data(), v.data()).ok());
  ASSERT_TRUE(bulk.append_tokens(a, 0, 130, k.data() + std::uint64_t{170} * H * d,
                                 v.data() + std::uint64_t{170} * H * d)
                  .ok());
  for (std::uint32_t t = 0; t < n; ++t)
    ASSERT_TRUE(single
                    .append(b, 0, k.data() + std::uint64_t{t} * H * d,
                            v.data() + std::uint64_t{t} * H * d, static_cast<std::int32_t>(t))
                    .ok());
  std::vector<float> ka(d), kb(d), va(d), vb(d);
  for (std::uint32_t h = 0; h < H; ++h)
    for (std::uint32_t t = 0; t < n; ++t) {
      bulk.read(a, 0, h, t, ka.data(), va.data());
      single.read(b, 0, h, t, kb.data(), vb.data());
      ASSERT_EQ(ka, kb) << "key h=" << h << " t=" << t;
      ASSERT_EQ(va, vb) << "value h=" << h << " t=" << t;
    }
  EXPECT_EQ(bulk.bytes_held(a), single.bytes_held(b));
}

TEST(PoolBook, KiviPlanRunsKeysBeforeTheResidualAndValuesBeforeTheWindow) {
  const PoolConfig cfg{.format = parse_kv_format("kivi:bits=2,group=32,residual=128"),
                       .num_layers = 1,
                       .num_kv_heads = 1,
                       .head_dim = 32,
                       .block_size = 16};
  PagedKvBook book;
  RecordingStorage rec;
  ASSERT_TRUE(book.init(cfg, rec).ok());
  const std::uint32_t s = book.add_sequence();
  const auto x = values(300 * 32, 1.f);
  ASSERT_TRUE(book.append(s, 0, 100, x.data(), x.data(), nullptr, false, rec).ok());
  rec.calls.clear();
  // 100 -> 300: keys 0..256 quantized (128 of them from the residual), residual 256..300;
  // values 0..172 leave the 128-slot window, which then holds 172..300.
  ASSERT_TRUE(book.append(s, 0, 200, x.data(), x.data(), nullptr, false, rec).ok());
  std::vector<std::string> steps;
  for (const auto& c : rec.calls)
    if (c.rfind("grow", 0) != 0) steps.push_back(c);
  EXPECT_EQ(steps, (std::vector<std::string>{"keys 0..256", "residual 256..300", "values 0..172",
                                             "window 172..300"}));
}

INSTANTIATE_TEST_SUITE_P(Formats, PoolBook,
                         ::testing::Values(BookCase{"fp16", 1}, BookCase{"fp16", 17},
                                           BookCase{"int8", 3}, BookCase{"fp8", 16},
                                           BookCase{"kivi:bits=2,group=32,residual=128", 16},
                                           BookCase{"kivi:bits=4,group=32,residual=64", 3},
                                           BookCase{"kivi:bits=2,group=32,residual=128", 17}),
                         [](const ::testing::TestParamInfo<BookCase>& i) {
                           std::string n =
                               i.param.format + "_S" + std::to_string(i.param.block_size);
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace kvplan::kernels

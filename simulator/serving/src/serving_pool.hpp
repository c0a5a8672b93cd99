// Private to the serving simulator: the block pool's free queue and the prefix cache.
//
// vLLM V1's BlockPool (vllm/v1/core/block_pool.py@b4622cf9) keeps every free block in one queue
// ordered by the time it was freed; a block that holds a full block of a prompt keeps its hash
// while free, so a later request can take it back (a prefix hit); a new block comes from the
// queue's head, and a hashed block taken from there loses its hash (eviction, LRU). Blocks here
// are counts, not ids: the free queue is runs of unhashed blocks and single hashed entries, each
// with the step counter at which it was freed, so the eviction order is vLLM's.
//
// With prefix caching every KV-cache group is full attention, so one cache "unit" is one block
// of each group (vLLM's KVCacheBlockBundle); without it a unit is one block.
#pragma once

#include <cstdint>
#include <deque>
#include <list>
#include <unordered_map>
#include <vector>

namespace kvplan::sim::detail {

class CpuTier {
 public:
  explicit CpuTier(std::uint64_t capacity) : capacity_(capacity) {}
  bool enabled() const { return capacity_ > 0; }
  bool contains(std::uint64_t h) const { return map_.count(h) != 0; }
  void touch(std::uint64_t h) {
    auto it = map_.find(h);
    if (it != map_.end()) lru_.splice(lru_.end(), lru_, it->second);
  }
  void insert(std::uint64_t h) {
    if (capacity_ == 0) return;
    if (auto it = map_.find(h); it != map_.end()) {
      lru_.splice(lru_.end(), lru_, it->second);
      return;
    }
    if (map_.size() == capacity_) {
      map_.erase(lru_.front());
      lru_.pop_front();
    }
    lru_.push_back(h);
    map_.emplace(h, std::prev(lru_.end()));
  }

 private:
  std::uint64_t capacity_;
  std::list<std::uint64_t> lru_;
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> map_;
};

class UnitPool {
 public:
  UnitPool(std::uint64_t units, bool caching, std::uint64_t cpu_units)
      : caching_(caching), cpu_(cpu_units), free_(units), unhashed_free_(units) {
    if (caching_) runs_.push_back({0, units});
  }

  std::uint64_t free_units() const { return free_; }  // unhashed + evictable hashed
  std::uint64_t cached_free() const { return free_ - unhashed_free_; }
  CpuTier& cpu() { return cpu_; }

  // Takes n units (n <= free_units()); hashed free entries at the head lose their hash.
  void allocate(std::uint64_t n) {
    free_ -= n;
    if (!caching_) {
      unhashed_free_ -= n;
      return;
    }
    while (n > 0) {
      skip_stale();
      const bool take_run =
          !runs_.empty() && (hashed_.empty() || runs_.front().seq < hashed_.front().seq);
      if (take_run) {
        auto& r = runs_.front();
        const std::uint64_t k = r.count < n ? r.count : n;
        r.count -= k, n -= k, unhashed_free_ -= k;
        if (r.count == 0) runs_.pop_front();
      } else {
        const std::uint32_t e = hashed_.front().entry;
        hashed_.pop_front();
        evict(e);
        --n;
      }
    }
  }
  // Returns n unhashed units to the queue's tail.
  void release(std::uint64_t n) {
    if (n == 0) return;
    free_ += n, unhashed_free_ += n;
    if (caching_) runs_.push_back({++clock_, n});
  }

  // The prefix cache: entry of a hash, or -1.
  std::int64_t find(std::uint64_t h) const {
    auto it = map_.find(h);
    return it == map_.end() ? -1 : static_cast<std::int64_t>(it->second);
  }
  bool entry_free(std::uint32_t e) const { return entries_[e].ref == 0; }
  // A request takes a cached entry (a prefix hit); a free one leaves the free queue.
  void ref(std::uint32_t e) {
    if (entries_[e].ref++ == 0) --free_, entries_[e].free_seq = 0;
  }
  // A request lets go of an entry; the last one puts it at the free queue's tail, hash kept.
  void unref(std::uint32_t e) {
    if (--entries_[e].ref == 0) {
      ++free_;
      entries_[e].free_seq = ++clock_;
      hashed_.push_back({clock_, e});
    }
  }
  // A unit a request holds (allocated, unhashed) becomes the cached block of `h`; returns the
  // entry, or -1 when another block already holds that hash (the unit stays private).
  std::int64_t publish(std::uint64_t h) {
    if (map_.count(h)) return -1;
    const auto e = static_cast<std::uint32_t>(entries_.size());
    entries_.push_back({h, 1, 0});
    map_.emplace(h, e);
    return e;
  }

 private:
  struct Entry {
    std::uint64_t hash;
    std::uint32_t ref;
    std::uint64_t free_seq;  // 0 while held
  };
  struct Run {
    std::uint64_t seq, count;
  };
  struct Node {
    std::uint64_t seq;
    std::uint32_t entry;
  };
  void skip_stale() {
    // An entry taken back by a hit leaves a stale node behind (its free_seq changed).
    while (!hashed_.empty() && entries_[hashed_.front().entry].free_seq != hashed_.front().seq)
      hashed_.pop_front();
  }
  void evict(std::uint32_t e) {
    map_.erase(entries_[e].hash);
    cpu_.insert(entries_[e].hash);  // offloaded when the CPU tier is on
    entries_[e].free_seq = 0;
  }

  bool caching_;
  CpuTier cpu_;
  std::uint64_t free_, unhashed_free_;
  std::uint64_t clock_ = 0;
  std::deque<Run> runs_;
  std::deque<Node> hashed_;
  std::vector<Entry> entries_;
  std::unordered_map<std::uint64_t, std::uint32_t> map_;
};

}  // namespace kvplan::sim::detail

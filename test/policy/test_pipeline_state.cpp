// PipelineState against the closed form, and the producer/consumer parity protocol played against a
// model of an mbarrier's phase (written here from the PTX ISA's definition of try_wait.parity).
#include <gtest/gtest.h>

#include <vector>

#include "bwgemm/pipeline/pipeline_state.cuh"

namespace {

template <int S>
void check_closed_form() {
  bwgemm::PipelineState<S> st;
  for (uint32_t step = 0; step < 10 * S + 3; ++step) {
    ASSERT_EQ(st.index, step % S) << "step " << step;
    ASSERT_EQ(st.phase, (step / S) % 2) << "step " << step;
    ASSERT_EQ(st.consumer_parity(), (step / S) % 2);
    ASSERT_EQ(st.producer_parity(), 1 - (step / S) % 2);
    st.advance();
  }
  bwgemm::PipelineState<S> jumped;
  jumped.advance(7 * S + 2);
  EXPECT_EQ(jumped.index, static_cast<uint32_t>(2 % S));
  EXPECT_EQ(jumped.phase, static_cast<uint32_t>(((7 * S + 2) / S) % 2));
}

// advance(steps) from every slot and phase equals `steps` single advances (the ping-pong consumers skip the
// other consumer's tiles with it, from wherever the ring stands).
template <int S>
void check_jumps_from_every_slot() {
  for (uint32_t start = 0; start < 2 * S; ++start) {
    for (uint32_t steps = 0; steps < 3 * S + 2; ++steps) {
      bwgemm::PipelineState<S> one_by_one;
      for (uint32_t i = 0; i < start; ++i) one_by_one.advance();
      bwgemm::PipelineState<S> jumped = one_by_one;
      jumped.advance(steps);
      for (uint32_t i = 0; i < steps; ++i) one_by_one.advance();
      ASSERT_EQ(jumped.index, one_by_one.index) << "S " << S << " start " << start << " steps " << steps;
      ASSERT_EQ(jumped.phase, one_by_one.phase) << "S " << S << " start " << start << " steps " << steps;
    }
  }
}

TEST(PipelineState, JumpEqualsSingleStepsFromEverySlot) {
  check_jumps_from_every_slot<1>();
  check_jumps_from_every_slot<2>();
  check_jumps_from_every_slot<4>();
  check_jumps_from_every_slot<6>();
  check_jumps_from_every_slot<7>();
}

TEST(PipelineState, MatchesClosedFormForEveryStageCount) {
  check_closed_form<1>();
  check_closed_form<2>();
  check_closed_form<3>();
  check_closed_form<5>();
  check_closed_form<8>();
}

// An mbarrier with arrival count 1, reduced to what the parity protocol sees: the number of completed
// phases. try_wait.parity(P) is true when the phase of parity P has completed, i.e. when the current
// (incomplete) phase's parity differs from P.
struct PhaseModel {
  uint32_t completed = 0;
  bool try_wait(uint32_t parity) const { return (completed & 1u) != parity; }
  void arrive() { ++completed; }
};

// Producer and consumer run in lock-step rounds; the producer may run ahead by at most Stages slots.
TEST(PipelineState, ProducerAndConsumerNeverOverrunEachOther) {
  constexpr int kStages = 3;
  std::vector<PhaseModel> full(kStages), empty(kStages);
  std::vector<int> slot_owner(kStages, -1);  // which item occupies each slot
  bwgemm::PipelineState<kStages> prod, cons;
  int produced = 0, consumed = 0;
  const int kItems = 50;
  for (int round = 0; round < 1000 && consumed < kItems; ++round) {
    // The producer fills as many slots as the protocol allows.
    while (produced < kItems && empty[prod.index].try_wait(prod.producer_parity())) {
      ASSERT_EQ(slot_owner[prod.index], -1) << "producer overwrote an unconsumed slot";
      slot_owner[prod.index] = produced++;
      full[prod.index].arrive();
      prod.advance();
    }
    ASSERT_LE(produced - consumed, kStages);
    // The consumer takes one item per round, in order.
    if (full[cons.index].try_wait(cons.consumer_parity())) {
      ASSERT_EQ(slot_owner[cons.index], consumed) << "consumer read a slot out of order";
      slot_owner[cons.index] = -1;
      ++consumed;
      empty[cons.index].arrive();
      cons.advance();
    }
  }
  EXPECT_EQ(consumed, kItems);
}

TEST(PipelineState, FirstProducerPassDoesNotWait) {
  PhaseModel fresh;
  bwgemm::PipelineState<4> st;
  EXPECT_TRUE(fresh.try_wait(st.producer_parity()));   // empty slots are free on pass 0
  EXPECT_FALSE(fresh.try_wait(st.consumer_parity()));  // but nothing is full yet
}

TEST(BarrierArray, EightBytesApart) {
  constexpr bwgemm::BarrierArray<4> bars{0x400};
  static_assert(bars[0] == 0x400 && bars[3] == 0x418, "8-byte mbarriers");
  EXPECT_EQ(bars[1], 0x408u);
}

}  // namespace

// LeaderExchange: one piece of an all-reduce among the host leaders, by recursive doubling
// over the leaders' engine's own sends and receives (gloo's).
//
// Why not the engine's all-reduce: gloo's ring all-reduce sends a message per chunk in
// each of its reduce-scatter and all-gather steps, several each way even between two ranks
// once a tensor has as many elements as it has chunks, where an exchange sends one; across
// hosts each message costs a round of wake-ups, which is the whole time of a small
// all-reduce. Recursive doubling sends ceil(log2 P) messages of the whole piece (two more
// where P is not a power of two), one way at a time (below), where the ring sends 2(P - 1)
// of a P-th of it both ways at once: so the caller keeps gloo's ring for large pieces
// (kExchangeMax in hosts.cpp), where bytes count more than messages. And
// every dtype and op works here (shmc_reduce_local combines), where gloo lacks some.
//
// With p2 the largest power of two not above P: leader h >= p2 first hands its part to
// h - p2 and at the end takes the result from it; leaders below p2 exchange with h ^ d for
// d = 1, 2, ..., p2 / 2, combining with the lower block's value as the left operand, so
// that both partners compute the same bits (a + b and b + a are equal in IEEE arithmetic,
// but min and max of a NaN need not be). A pair's messages go one way after the other
// (the lower block's first): gloo's send and receive posted together on both sides of a
// pair took several times as long as one after the other, between namespace hosts
// (docs/performance.md, "Across hosts").
#pragma once

#include <torch/csrc/distributed/c10d/Backend.hpp>

#include <vector>

#include "shmcomm.h"

namespace shmct
{

class LeaderExchange
{
  public:
    // piece: contiguous, this host's part, overwritten with the result; tag: unique among
    // the exchanges of one operation (gloo matches by peer and tag).
    LeaderExchange(c10d::Backend &leaders, int host, int nhosts, at::Tensor piece, int tag,
                   shmc_dtype dt, shmc_op op);
    // Posts the first message, so that it travels while the caller goes on.
    void start();
    // Waits for it, then runs the rest; the piece holds the result on return.
    void finish();

  private:
    // One leader's part, in order: a message to or from a peer (tmp receives, cur is
    // sent), a combination of cur with tmp (cur on the left or on the right), or tmp taken
    // as the result.
    enum Kind { kSend, kRecv, kCombineLeft, kCombineRight, kTake };
    struct Act {
        Kind kind;
        int peer;
    };
    c10::intrusive_ptr<c10d::Work> post(const Act &a);
    void combine(bool left);

    c10d::Backend *leaders_;
    at::Tensor piece_, cur_, tmp_;
    int tag_;
    shmc_dtype dt_;
    shmc_op op_;
    std::vector<Act> acts_;
    c10::intrusive_ptr<c10d::Work> first_; // the first message, posted by start
};

} // namespace shmct

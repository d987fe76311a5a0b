// Package ib is the PM/InfiniBand-FJ paper's InfiniBand host channel adapter on netsim/fabric.
package ib

// ib is an InfiniBand host channel adapter of the PM/InfiniBand-FJ paper (Sumimoto et al.) on lhsim's
// event engine and netsim/fabric: reliable-connection queue pairs whose work queues and
// completion queues live in host memory and cross a 133 MHz PCI-X bus by DMA, the SQ, RQ and
// scheduler processors of the Fujitsu HCA, per-message ACKs, RNR NAKs and go-back-N resends,
// Data on WQE (a short message inside the 64-byte WQE, one DMA instead of two), receive
// buffers in per-peer queues or one shared receive queue, and commands that stop, resume,
// save and restore a range of QPs at once. A machine of such nodes (Build) runs host programs
// written as state machines, and takes checkpoints as SCore does (stop, stable, save) into
// lhsim's checkpoint file; a restart in another process goes on bit for bit.
//
// Every parameter says where its value comes from (Params); docs/ib.md has the model, the
// figures against the paper and what is not modelled.

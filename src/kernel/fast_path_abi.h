/* The fast path's map layout, shared by the BPF program (C, clang -target bpf)
 * and the user-space loader (C++). Plain fixed-width types, no implicit
 * padding: both sides see the same bytes.
 *
 * fl_cache    hash   fl_key -> fl_value      what the slow path decided for one microflow
 * fl_counters array[cpu * FL_MAX_ENTRIES + slot] -> fl_count  packets/bytes hit in the kernel
 *                                             per entry and CPU (mmap'd by user space)
 * fl_ports    hash   ingress ifindex -> fl_port  the switches' ports: their switch's upcall
 *                                             device, their tag on it and their datapath
 * fl_stats    percpu array[dp * FL_STAT_COUNT + FL_STAT_*] -> u64  hits, upcalls, drops per datapath
 * fl_epoch    global (.bss) [dp]              entries with another epoch are stale (= miss)
 * fl_masks    global (.bss) [dp][fl_n_masks[dp]]  megaflow masks, append-only: the program looks
 *                                             the key up under each (key & mask, mask_id = i)
 *
 * One loaded program serves up to FL_MAX_DPS datapaths (the switches of one
 * switch host; `flowlab switch` alone is datapath 0 of its own program): a
 * port's fl_port names its datapath, whose epoch, masks and statistics the
 * program uses. Cache keys start with the ingress ifindex, so the datapaths'
 * entries never meet in fl_cache; counter slots are handed out by the loader
 * from one pool.
 */
#ifndef FLOWLAB_KERNEL_FAST_PATH_ABI_H
#define FLOWLAB_KERNEL_FAST_PATH_ABI_H

#ifdef __cplusplus
#include <cstdint>
#define FL_U8 uint8_t
#define FL_U16 uint16_t
#define FL_U32 uint32_t
#define FL_U64 uint64_t
#else
#define FL_U8 __u8
#define FL_U16 __u16
#define FL_U32 __u32
#define FL_U64 __u64
#endif

#define FL_MAX_ENTRIES 65536
#define FL_MAX_PORTS 4096   /* of all datapaths of one program */
#define FL_MAX_DPS 64       /* datapaths of one program (a power of two) */
#define FL_MAX_OPS 16       /* = dp::FastPathDecision::kMaxOps */
#define FL_NO_OUTPUT 0xff   /* fl_value.last_out of a drop decision */
#define FL_MAX_MASKS 8      /* few masks: a miss costs one lookup per mask */
#define FL_ETH_MIN_FRAME 60 /* frames shorter than this are padded by the slow path, so they miss */

/* Key: the fields of an untagged, unfragmented IPv4 packet that the OpenFlow
 * key depends on. Every other FlowKey field is constant for such packets, so
 * the slow path's decision is a function of this key. Addresses and ports in
 * network byte order, as on the wire. A cache entry's key is this key ANDed
 * with one of fl_masks (ifindex always whole), mask_id naming the mask. */
struct fl_key {
  FL_U32 ifindex; /* ingress port */
  FL_U32 ipv4_src;
  FL_U32 ipv4_dst;
  FL_U16 tp_src; /* TCP/UDP/SCTP source port; ICMP type (low byte) */
  FL_U16 tp_dst; /* destination port; ICMP code (low byte) */
  FL_U8 eth_dst[6];
  FL_U8 eth_src[6];
  FL_U8 ip_proto;
  FL_U8 ip_tos;   /* DSCP << 2 | ECN */
  FL_U16 mask_id; /* index into fl_masks (0 in an extracted key and in a mask) */
};

enum fl_op_kind {
  FL_OP_OUTPUT = 1,       /* arg32: ifindex, bpf_redirect (egress) */
  FL_OP_OUTPUT_PEER = 2,  /* arg32: ifindex of a veth, bpf_redirect_peer (ingress of its peer) */
  FL_OP_SET_ETH_SRC = 3,  /* mac */
  FL_OP_SET_ETH_DST = 4,  /* mac */
  FL_OP_SET_IPV4_SRC = 5, /* arg32 (network order) */
  FL_OP_SET_IPV4_DST = 6, /* arg32 (network order) */
  FL_OP_SET_TP_SRC = 7,   /* arg16 (network order), TCP or UDP */
  FL_OP_SET_TP_DST = 8,   /* arg16 (network order), TCP or UDP */
  FL_OP_DEC_TTL = 9,      /* TTL <= 1 makes the packet a miss (the slow path handles it) */
};

struct fl_op {
  FL_U8 kind;
  FL_U8 pad;
  FL_U16 arg16;
  FL_U32 arg32;
  FL_U8 mac[6];
  FL_U8 pad2[2];
};

struct fl_value {
  FL_U64 epoch;
  FL_U32 slot;     /* index into fl_counters */
  FL_U8 n_ops;     /* 0: drop */
  FL_U8 last_out;  /* index of the last output op (it redirects; earlier ones clone); FL_NO_OUTPUT: drop */
  FL_U8 n_dec_ttl; /* DEC_TTL ops: a packet with TTL <= this is a miss (the slow path handles it) */
  FL_U8 pad;
  struct fl_op ops[FL_MAX_OPS];
};

struct fl_count {
  FL_U64 packets;
  FL_U64 bytes;
};

struct fl_port {
  FL_U32 upcall_ifindex; /* misses are redirected to this device (its reader is the switch) */
  FL_U32 flags;          /* FL_PORT_* */
  FL_U32 dp;             /* the port's datapath (< FL_MAX_DPS) */
  FL_U32 tag;            /* the port's index in its switch (<= FL_MAX_PORT_TAG) */
};

/* One upcall device (a TAP) serves all ports of a switch: the program pushes
 * an outer 802.1Q tag whose TCI is the ingress port's fl_port.tag before it
 * redirects a miss there, and the switch pops it. Only the switch's own
 * program sends into the device, so every frame read from it has the tag. */
#define FL_UPCALL_TPID 0x8100
#define FL_MAX_PORT_TAG 4095

#define FL_PORT_ACTIVE 1u /* 0: every packet is a miss (port config, not yet known) */

enum fl_stat {
  FL_STAT_HITS = 0,
  FL_STAT_UPCALLS = 1,
  FL_STAT_DROPS = 2,        /* dropped by a cached drop decision */
  FL_STAT_REDIRECT_ERR = 3, /* a redirect the kernel refused */
  FL_STAT_OUT_PEER = 4,     /* hits whose last output was bpf_redirect_peer */
  FL_STAT_OUT_REDIRECT = 5, /* ... bpf_redirect (egress of the port) */
  FL_STAT_OUT_CLONE = 6,    /* bpf_clone_redirect calls (all outputs but the last) */
  FL_STAT_GSO = 7,          /* hits that were GSO super-frames (gso_segs > 1) */
  FL_STAT_COUNT = 8,
};

#endif

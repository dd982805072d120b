/* flowlab's kernel fast path: a TC ingress program on every switch port.
 *
 * For an untagged, unfragmented IPv4 packet it builds an fl_key (see
 * fast_path_abi.h), looks it up in fl_cache under each megaflow mask and, when
 * an entry of the current epoch matches, runs its action list: set-fields with incremental checksum
 * updates (CHECKSUM_PARTIAL and GSO super-frames stay as they are), TTL
 * decrement, outputs (clone-redirect for all but the last, redirect or
 * redirect_peer for the last), or a drop. Anything else is a miss: the packet
 * is redirected, unchanged, to the port's upcall device, which only the
 * switch's slow path reads. Packets of interfaces that are not in fl_ports
 * pass untouched.
 *
 * Compiled with clang -target bpf -O2 -g at build time and embedded in the
 * flowlab binary through a bpftool skeleton (src/kernel/fast_path_loader.cpp).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "kernel/fast_path_abi.h"

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, FL_MAX_ENTRIES);
  __type(key, struct fl_key);
  __type(value, struct fl_value);
} fl_cache SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, FL_MAX_ENTRIES);
  __type(key, __u32);
  __type(value, struct fl_count);
} fl_counters SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, FL_MAX_PORTS);
  __type(key, __u32);
  __type(value, struct fl_port);
} fl_ports SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, FL_STAT_COUNT);
  __type(key, __u32);
  __type(value, __u64);
} fl_stats SEC(".maps");

volatile __u64 fl_epoch = 0;
volatile __u32 fl_n_masks = 0;
struct fl_key fl_masks[FL_MAX_MASKS];

#define ETH_LEN 14
#define IP_CSUM_OFF (ETH_LEN + 10)
#define IP_TTL_OFF (ETH_LEN + 8)
#define IP_SRC_OFF (ETH_LEN + 12)
#define IP_DST_OFF (ETH_LEN + 16)
#define PROTO_SCTP 132
#define PROTO_ICMPV6 58

static __always_inline void count_stat(__u32 i) {
  __u64 *c = bpf_map_lookup_elem(&fl_stats, &i);
  if (c) *c += 1;
}

/* Mirrors src/kernel/cache_key.cpp (fuzzed against the OpenFlow key
 * extraction). Returns 0 when the packet can be cached. */
static __always_inline int extract(struct __sk_buff *skb, struct fl_key *k, __u32 *l4, __u8 *ttl) {
  struct ethhdr eth;
  struct iphdr ip;
  if (skb->vlan_present) return -1;
  if (bpf_skb_load_bytes(skb, 0, &eth, sizeof eth)) return -1;
  if (eth.h_proto != bpf_htons(ETH_P_IP)) return -1;
  if (bpf_skb_load_bytes(skb, ETH_LEN, &ip, sizeof ip)) return -1;
  if (ip.version != 4 || ip.ihl < 5) return -1;
  __u32 ihl = ip.ihl * 4;
  if (skb->len < ETH_LEN + ihl) return -1;
  if (ip.frag_off & bpf_htons(0x3fff)) return -1;
  /* The OpenFlow key reads ICMPv6 fields for protocol 58 even in IPv4. */
  if (ip.protocol == PROTO_ICMPV6) return -1;
  __builtin_memcpy(k->eth_dst, eth.h_dest, 6);
  __builtin_memcpy(k->eth_src, eth.h_source, 6);
  k->ifindex = skb->ingress_ifindex;
  k->ipv4_src = ip.saddr;
  k->ipv4_dst = ip.daddr;
  k->ip_proto = ip.protocol;
  k->ip_tos = ip.tos;
  *ttl = ip.ttl;
  *l4 = ETH_LEN + ihl;
  if (ip.protocol == IPPROTO_TCP || ip.protocol == IPPROTO_UDP || ip.protocol == PROTO_SCTP) {
    __u16 ports[2];
    if (bpf_skb_load_bytes(skb, *l4, ports, 4)) return -1;
    k->tp_src = ports[0];
    k->tp_dst = ports[1];
  } else if (ip.protocol == IPPROTO_ICMP) {
    __u8 tc[2];
    if (bpf_skb_load_bytes(skb, *l4, tc, 2)) return -1;
    k->tp_src = tc[0];
    k->tp_dst = tc[1];
  }
  return 0;
}

static __always_inline __u32 l4_csum_off(__u8 proto, __u32 l4) {
  if (proto == IPPROTO_TCP) return l4 + 16;
  if (proto == IPPROTO_UDP) return l4 + 6;
  return 0;
}

/* Applies one set-field / TTL op; 0 on success. */
static __always_inline int apply(struct __sk_buff *skb, const struct fl_op *op, const struct fl_key *k, __u32 l4,
                                 __u8 *ttl) {
  __u32 csum = l4_csum_off(k->ip_proto, l4);
  __u64 l4_flags = k->ip_proto == IPPROTO_UDP ? BPF_F_MARK_MANGLED_0 : 0;
  switch (op->kind) {
    case FL_OP_SET_ETH_SRC:
      return bpf_skb_store_bytes(skb, 6, op->mac, 6, 0);
    case FL_OP_SET_ETH_DST:
      return bpf_skb_store_bytes(skb, 0, op->mac, 6, 0);
    case FL_OP_SET_IPV4_SRC:
    case FL_OP_SET_IPV4_DST: {
      __u32 off = op->kind == FL_OP_SET_IPV4_SRC ? IP_SRC_OFF : IP_DST_OFF;
      __u32 old;
      __u32 new_addr = op->arg32;
      if (bpf_skb_load_bytes(skb, off, &old, 4)) return -1;
      if (csum && bpf_l4_csum_replace(skb, csum, old, new_addr, BPF_F_PSEUDO_HDR | l4_flags | 4)) return -1;
      if (bpf_l3_csum_replace(skb, IP_CSUM_OFF, old, new_addr, 4)) return -1;
      return bpf_skb_store_bytes(skb, off, &new_addr, 4, 0);
    }
    case FL_OP_SET_TP_SRC:
    case FL_OP_SET_TP_DST: {
      if (!csum) return -1;
      __u32 off = l4 + (op->kind == FL_OP_SET_TP_SRC ? 0 : 2);
      __u16 old;
      __u16 new_port = op->arg16;
      if (bpf_skb_load_bytes(skb, off, &old, 2)) return -1;
      if (bpf_l4_csum_replace(skb, csum, old, new_port, l4_flags | 2)) return -1;
      return bpf_skb_store_bytes(skb, off, &new_port, 2, 0);
    }
    case FL_OP_DEC_TTL: {
      __u16 old = bpf_htons((__u16)*ttl << 8);
      __u8 t = *ttl - 1;
      __u16 new_word = bpf_htons((__u16)t << 8);
      if (bpf_l3_csum_replace(skb, IP_CSUM_OFF, old, new_word, 2)) return -1;
      if (bpf_skb_store_bytes(skb, IP_TTL_OFF, &t, 1, 0)) return -1;
      *ttl = t;
      return 0;
    }
  }
  return -1;
}

SEC("tc")
int fl_ingress(struct __sk_buff *skb) {
  __u32 in = skb->ingress_ifindex;
  struct fl_port *port = bpf_map_lookup_elem(&fl_ports, &in);
  if (!port) return TC_ACT_OK;
  __u32 upcall = port->upcall_ifindex;
  struct fl_key k = {};
  __u32 l4 = 0;
  __u8 ttl = 0;
  /* A frame under the Ethernet minimum leaves the switch padded to 60 bytes
   * (as a NIC pads it); the slow path pads, so such frames are misses here. */
  if (skb->len < FL_ETH_MIN_FRAME) goto miss;
  if (!(port->flags & FL_PORT_ACTIVE) || extract(skb, &k, &l4, &ttl)) goto miss;
  /* Megaflow lookup: the key under each mask in turn (user space appends a
   * mask before the first entry that uses it, so every index < n is whole).
   * Every entry is exact for all packets its masked key covers: the first
   * one of the current epoch wins. */
  __u64 epoch = fl_epoch;
  __u32 nm = fl_n_masks;
  struct fl_value *v = 0;
  const __u64 *kw = (const __u64 *)&k;
  for (__u32 i = 0; i < FL_MAX_MASKS; i++) {
    if (i >= nm) break;
    const __u64 *mw = (const __u64 *)&fl_masks[i];
    __u64 mk[4];
    mk[0] = kw[0] & mw[0];
    mk[1] = kw[1] & mw[1];
    mk[2] = kw[2] & mw[2];
    mk[3] = kw[3] & mw[3];
    ((struct fl_key *)mk)->mask_id = (__u16)i;
    v = bpf_map_lookup_elem(&fl_cache, mk);
    if (v && v->epoch == epoch) break;
    v = 0;
  }
  if (!v) goto miss;

  /* TTL checks first: a packet the slow path must see is not touched here. */
  __u32 n = v->n_ops;
  if (n > FL_MAX_OPS) goto miss;
  __u8 t = ttl;
  int last_out = -1;
  for (int i = 0; i < FL_MAX_OPS; i++) {
    if (i >= n) break;
    __u8 kind = v->ops[i].kind;
    if (kind == FL_OP_DEC_TTL) {
      if (t <= 1) goto miss;
      t--;
    }
    if (kind == FL_OP_OUTPUT || kind == FL_OP_OUTPUT_PEER) last_out = i;
  }

  __u32 slot = v->slot;
  struct fl_count *c = bpf_map_lookup_elem(&fl_counters, &slot);
  if (c) {
    c->packets += 1;
    c->bytes += skb->len;
  }
  count_stat(FL_STAT_HITS);
  if (skb->gso_segs > 1) count_stat(FL_STAT_GSO);
  if (last_out < 0) {
    count_stat(FL_STAT_DROPS);
    return TC_ACT_SHOT;
  }
  for (int i = 0; i < FL_MAX_OPS; i++) {
    if (i >= n) break;
    const struct fl_op *op = &v->ops[i];
    if (op->kind == FL_OP_OUTPUT || op->kind == FL_OP_OUTPUT_PEER) {
      if (i == last_out) {
        int peer = op->kind == FL_OP_OUTPUT_PEER;
        long r = peer ? bpf_redirect_peer(op->arg32, 0) : bpf_redirect(op->arg32, 0);
        count_stat(r != TC_ACT_REDIRECT ? FL_STAT_REDIRECT_ERR : peer ? FL_STAT_OUT_PEER : FL_STAT_OUT_REDIRECT);
        return (int)r;
      }
      count_stat(FL_STAT_OUT_CLONE);
      if (bpf_clone_redirect(skb, op->arg32, 0)) count_stat(FL_STAT_REDIRECT_ERR);
    } else if (apply(skb, op, &k, l4, &ttl)) {
      count_stat(FL_STAT_REDIRECT_ERR);
      return TC_ACT_SHOT;
    }
  }
  return TC_ACT_SHOT;

miss:
  count_stat(FL_STAT_UPCALLS);
  return (int)bpf_redirect(upcall, 0);
}

char LICENSE[] SEC("license") = "GPL";

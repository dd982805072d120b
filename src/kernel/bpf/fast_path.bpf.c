/* flowlab's kernel fast path: a TC ingress program on every switch port.
 *
 * For an untagged, unfragmented IPv4 packet it builds an fl_key (see
 * fast_path_abi.h), looks it up in fl_cache under each megaflow mask and, when
 * an entry of the current epoch matches, runs its action list: set-fields with incremental checksum
 * updates (CHECKSUM_PARTIAL and GSO super-frames stay as they are), TTL
 * decrement, outputs (clone-redirect for all but the last, redirect or
 * redirect_peer for the last), or a drop. Anything else is a miss: the packet
 * gets an outer 802.1Q tag naming its ingress port (fl_port.tag; a tag in the
 * skb's metadata, the frame's bytes are not moved) and is redirected to its
 * switch's upcall device, which only the switch's slow path reads (it pops
 * the tag). Packets of interfaces that are not in fl_ports
 * pass untouched. One program serves several datapaths (a switch host's
 * switches): the port's entry in fl_ports names the datapath whose epoch,
 * masks and statistics apply.
 *
 * Compiled with clang -target bpf -O2 -g at build time and embedded in the
 * flowlab binary through a bpftool skeleton (src/kernel/fast_path.cpp).
 *
 * Cheap to verify (every switch process pays the verifier once at start-up):
 * the key extraction, the mask search and one op are global functions, which
 * the verifier checks once each with unknown arguments instead of once per
 * path through the caller; the mask search runs as a bpf_loop callback; the
 * op loop carries no state from op to op (user space precomputes the last
 * output and the TTL bound). See docs/PERFORMANCE.md "verifier cost".
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
  __uint(map_flags, BPF_F_NO_PREALLOC); /* entries are allocated by user space updates, not at load */
  __uint(max_entries, FL_MAX_ENTRIES);
  __type(key, struct fl_key);
  __type(value, struct fl_value);
} fl_cache SEC(".maps");

/* Per-CPU counters as one plain, mmap-able array, CPU-major: CPU c's counter
 * of slot s is at c * FL_MAX_ENTRIES + s (the loader sizes it for the possible
 * CPUs). A PERCPU_ARRAY of 65536 entries costs ~50 ms of per-CPU allocations
 * at load; this costs a zeroed vmalloc, and user space reads it without
 * system calls. */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
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
  __uint(max_entries, FL_MAX_DPS * FL_STAT_COUNT);
  __type(key, __u32);
  __type(value, __u64);
} fl_stats SEC(".maps");

volatile __u64 fl_epoch[FL_MAX_DPS];
volatile __u32 fl_n_masks[FL_MAX_DPS];
struct fl_key fl_masks[FL_MAX_DPS][FL_MAX_MASKS];

#define ETH_LEN 14
#define IP_CSUM_OFF (ETH_LEN + 10)
#define IP_TTL_OFF (ETH_LEN + 8)
#define IP_SRC_OFF (ETH_LEN + 12)
#define IP_DST_OFF (ETH_LEN + 16)
#define PROTO_SCTP 132
#define PROTO_ICMPV6 58

/* Per-packet facts extract() finds besides the key. */
struct fl_meta {
  __u32 l4;   /* offset of the L4 header */
  __u8 ttl;   /* IPv4 TTL */
  __u8 pad[3];
  __u32 dp; /* the ingress port's datapath */
};

static __always_inline void count_stat(__u32 dp, __u32 i) {
  __u32 k = (dp & (FL_MAX_DPS - 1)) * FL_STAT_COUNT + i;
  __u64 *c = bpf_map_lookup_elem(&fl_stats, &k);
  if (c) *c += 1;
}

/* Mirrors src/kernel/cache_key.cpp (fuzzed against the OpenFlow key
 * extraction). Returns 0 when the packet can be cached. Reads the headers in
 * place (direct packet access: no helper call, no copy) when they are in the
 * skb's linear part, as they are for the frames veths and local sockets make;
 * else copies them (fl_extract_copy, the same checks). Global: verified once. */
__attribute__((noinline)) int fl_extract_copy(struct __sk_buff *skb, struct fl_key *k, struct fl_meta *m);

__attribute__((noinline)) int fl_extract(struct __sk_buff *skb, struct fl_key *k, struct fl_meta *m) {
  if (!skb || !k || !m) return -1;
  if (skb->vlan_present) return -1;
  void *data = (void *)(long)skb->data;
  void *end = (void *)(long)skb->data_end;
  struct ethhdr *eth = data;
  struct iphdr *ip = data + ETH_LEN;
  if ((void *)(ip + 1) > end) return fl_extract_copy(skb, k, m);
  if (eth->h_proto != bpf_htons(ETH_P_IP)) return -1;
  if (ip->version != 4 || ip->ihl < 5) return -1;
  __u32 ihl = ip->ihl * 4;
  if (skb->len < ETH_LEN + ihl) return -1;
  if (ip->frag_off & bpf_htons(0x3fff)) return -1;
  /* The OpenFlow key reads ICMPv6 fields for protocol 58 even in IPv4. */
  if (ip->protocol == PROTO_ICMPV6) return -1;
  __u8 *l4 = data + ETH_LEN + ihl;
  if ((void *)(l4 + 4) > end) return fl_extract_copy(skb, k, m);
  __builtin_memcpy(k->eth_dst, eth->h_dest, 6);
  __builtin_memcpy(k->eth_src, eth->h_source, 6);
  k->ifindex = skb->ingress_ifindex;
  k->ipv4_src = ip->saddr;
  k->ipv4_dst = ip->daddr;
  k->ip_proto = ip->protocol;
  k->ip_tos = ip->tos;
  m->ttl = ip->ttl;
  m->l4 = ETH_LEN + ihl;
  if (ip->protocol == IPPROTO_TCP || ip->protocol == IPPROTO_UDP || ip->protocol == PROTO_SCTP) {
    k->tp_src = *(__u16 *)l4;
    k->tp_dst = *(__u16 *)(l4 + 2);
  } else if (ip->protocol == IPPROTO_ICMP) {
    k->tp_src = l4[0];
    k->tp_dst = l4[1];
  }
  return 0;
}

/* fl_extract on copies, for headers outside the skb's linear part. */
__attribute__((noinline)) int fl_extract_copy(struct __sk_buff *skb, struct fl_key *k, struct fl_meta *m) {
  struct ethhdr eth;
  struct iphdr ip;
  if (!skb || !k || !m) return -1;
  if (bpf_skb_load_bytes(skb, 0, &eth, sizeof eth)) return -1;
  if (eth.h_proto != bpf_htons(ETH_P_IP)) return -1;
  if (bpf_skb_load_bytes(skb, ETH_LEN, &ip, sizeof ip)) return -1;
  if (ip.version != 4 || ip.ihl < 5) return -1;
  __u32 ihl = ip.ihl * 4;
  if (skb->len < ETH_LEN + ihl) return -1;
  if (ip.frag_off & bpf_htons(0x3fff)) return -1;
  if (ip.protocol == PROTO_ICMPV6) return -1;
  __builtin_memcpy(k->eth_dst, eth.h_dest, 6);
  __builtin_memcpy(k->eth_src, eth.h_source, 6);
  k->ifindex = skb->ingress_ifindex;
  k->ipv4_src = ip.saddr;
  k->ipv4_dst = ip.daddr;
  k->ip_proto = ip.protocol;
  k->ip_tos = ip.tos;
  m->ttl = ip.ttl;
  m->l4 = ETH_LEN + ihl;
  if (ip.protocol == IPPROTO_TCP || ip.protocol == IPPROTO_UDP || ip.protocol == PROTO_SCTP) {
    __u16 ports[2];
    if (bpf_skb_load_bytes(skb, ETH_LEN + ihl, ports, 4)) return -1;
    k->tp_src = ports[0];
    k->tp_dst = ports[1];
  } else if (ip.protocol == IPPROTO_ICMP) {
    __u8 tc[2];
    if (bpf_skb_load_bytes(skb, ETH_LEN + ihl, tc, 2)) return -1;
    k->tp_src = tc[0];
    k->tp_dst = tc[1];
  }
  return 0;
}

/* The megaflow search's state, on the program's stack. */
struct fl_search {
  struct fl_key k;  /* the packet's key */
  struct fl_key mk; /* k under the mask being tried */
  __u64 epoch;
  __u32 dp;
  struct fl_value *v; /* the entry found, or 0 */
};

/* bpf_loop callback: the key under mask i. 1 stops the loop (found). */
static long search_mask(__u64 i, void *arg) {
  struct fl_search *s = arg;
  if (i >= FL_MAX_MASKS) return 1;
  const __u64 *kw = (const __u64 *)&s->k;
  const __u64 *mw = (const __u64 *)&fl_masks[s->dp & (FL_MAX_DPS - 1)][i];
  __u64 *out = (__u64 *)&s->mk;
  out[0] = kw[0] & mw[0];
  out[1] = kw[1] & mw[1];
  out[2] = kw[2] & mw[2];
  out[3] = kw[3] & mw[3];
  s->mk.mask_id = (__u16)i;
  struct fl_value *v = bpf_map_lookup_elem(&fl_cache, &s->mk);
  if (v && v->epoch == s->epoch) {
    s->v = v;
    return 1;
  }
  return 0;
}

/* bpf_loop callback for the masks after the first: i counts from 0. */
static long search_next_mask(__u64 i, void *arg) { return search_mask(i + 1, arg); }

static __always_inline __u32 l4_csum_off(__u8 proto, __u32 l4) {
  if (proto == IPPROTO_TCP) return l4 + 16;
  if (proto == IPPROTO_UDP) return l4 + 6;
  return 0;
}

#define FL_CONTINUE (-1000) /* fl_run_op: go on with the next op */

/* Runs one op: a set-field / TTL op returns FL_CONTINUE (TC_ACT_SHOT when the
 * kernel refused it); an output clones (FL_CONTINUE) or, when `last`,
 * redirects and returns the TC verdict. Global: verified once. */
__attribute__((noinline)) int fl_run_op(struct __sk_buff *skb, const struct fl_op *op, struct fl_meta *m, __u8 proto,
                                        int last) {
  if (!skb || !op || !m) return TC_ACT_SHOT;
  __u32 l4 = m->l4 & 0xff; /* ETH_LEN + at most 60 */
  __u32 csum = l4_csum_off(proto, l4);
  __u64 l4_flags = proto == IPPROTO_UDP ? BPF_F_MARK_MANGLED_0 : 0;
  switch (op->kind) {
    case FL_OP_OUTPUT:
    case FL_OP_OUTPUT_PEER: {
      if (last) {
        int peer = op->kind == FL_OP_OUTPUT_PEER;
        long r = peer ? bpf_redirect_peer(op->arg32, 0) : bpf_redirect(op->arg32, 0);
        count_stat(m->dp, r != TC_ACT_REDIRECT ? FL_STAT_REDIRECT_ERR : peer ? FL_STAT_OUT_PEER : FL_STAT_OUT_REDIRECT);
        return (int)r;
      }
      count_stat(m->dp, FL_STAT_OUT_CLONE);
      if (bpf_clone_redirect(skb, op->arg32, 0)) count_stat(m->dp, FL_STAT_REDIRECT_ERR);
      return FL_CONTINUE;
    }
    case FL_OP_SET_ETH_SRC:
    case FL_OP_SET_ETH_DST:
      if (bpf_skb_store_bytes(skb, op->kind == FL_OP_SET_ETH_SRC ? 6 : 0, op->mac, 6, 0)) break;
      return FL_CONTINUE;
    case FL_OP_SET_IPV4_SRC:
    case FL_OP_SET_IPV4_DST: {
      __u32 off = op->kind == FL_OP_SET_IPV4_SRC ? IP_SRC_OFF : IP_DST_OFF;
      __u32 old;
      __u32 new_addr = op->arg32;
      if (bpf_skb_load_bytes(skb, off, &old, 4)) break;
      if (csum && bpf_l4_csum_replace(skb, csum, old, new_addr, BPF_F_PSEUDO_HDR | l4_flags | 4)) break;
      if (bpf_l3_csum_replace(skb, IP_CSUM_OFF, old, new_addr, 4)) break;
      if (bpf_skb_store_bytes(skb, off, &new_addr, 4, 0)) break;
      return FL_CONTINUE;
    }
    case FL_OP_SET_TP_SRC:
    case FL_OP_SET_TP_DST: {
      if (!csum) break;
      __u32 off = l4 + (op->kind == FL_OP_SET_TP_SRC ? 0 : 2);
      __u16 old;
      __u16 new_port = op->arg16;
      if (bpf_skb_load_bytes(skb, off, &old, 2)) break;
      if (bpf_l4_csum_replace(skb, csum, old, new_port, l4_flags | 2)) break;
      if (bpf_skb_store_bytes(skb, off, &new_port, 2, 0)) break;
      return FL_CONTINUE;
    }
    case FL_OP_DEC_TTL: {
      __u8 t0 = m->ttl;
      __u16 old = bpf_htons((__u16)t0 << 8);
      __u8 t = t0 - 1;
      __u16 new_word = bpf_htons((__u16)t << 8);
      if (bpf_l3_csum_replace(skb, IP_CSUM_OFF, old, new_word, 2)) break;
      if (bpf_skb_store_bytes(skb, IP_TTL_OFF, &t, 1, 0)) break;
      m->ttl = t;
      return FL_CONTINUE;
    }
  }
  count_stat(m->dp, FL_STAT_REDIRECT_ERR);
  return TC_ACT_SHOT;
}

SEC("tc")
int fl_ingress(struct __sk_buff *skb) {
  __u32 in = skb->ingress_ifindex;
  struct fl_port *port = bpf_map_lookup_elem(&fl_ports, &in);
  if (!port) return TC_ACT_OK;
  __u32 upcall = port->upcall_ifindex;
  __u32 tag = port->tag;
  __u32 dp = port->dp & (FL_MAX_DPS - 1);
  struct fl_search s = {};
  struct fl_meta m = {};
  s.dp = dp;
  m.dp = dp;
  /* A frame under the Ethernet minimum leaves the switch padded to 60 bytes
   * (as a NIC pads it); the slow path pads, so such frames are misses here. */
  if (skb->len < FL_ETH_MIN_FRAME) goto miss;
  if (!(port->flags & FL_PORT_ACTIVE) || fl_extract(skb, &s.k, &m)) goto miss;
  /* Megaflow lookup: the key under each mask in turn (user space appends a
   * mask before the first entry that uses it, so every index < n is whole).
   * Every entry is exact for all packets its masked key covers: the first
   * one of the current epoch wins. */
  s.epoch = fl_epoch[dp];
  __u32 nm = fl_n_masks[dp];
  if (nm > FL_MAX_MASKS) nm = FL_MAX_MASKS;
  /* Mask 0 directly (most switches use one or two), the others in a loop. */
  if (nm > 0 && !search_mask(0, &s) && nm > 1) bpf_loop(nm - 1, search_next_mask, &s, 0);
  struct fl_value *v = s.v;
  if (!v) goto miss;

  /* TTL check first: a packet the slow path must see is not touched here. */
  __u32 n = v->n_ops;
  if (n > FL_MAX_OPS || (v->n_dec_ttl && m.ttl <= v->n_dec_ttl)) goto miss;
  __u32 last = v->last_out;
  __u8 proto = s.k.ip_proto;

  __u32 slot = v->slot;
  if (slot >= FL_MAX_ENTRIES) goto miss;
  slot += bpf_get_smp_processor_id() * FL_MAX_ENTRIES;
  struct fl_count *c = bpf_map_lookup_elem(&fl_counters, &slot);
  if (c) {
    c->packets += 1;
    c->bytes += skb->len;
  }
  count_stat(dp, FL_STAT_HITS);
  if (skb->gso_segs > 1) count_stat(dp, FL_STAT_GSO);
  if (last >= n) {
    count_stat(dp, FL_STAT_DROPS);
    return TC_ACT_SHOT;
  }
  for (__u32 i = 0; i < FL_MAX_OPS; i++) {
    if (i >= n) break;
    int r = fl_run_op(skb, &v->ops[i], &m, proto, i == last);
    if (r != FL_CONTINUE) return r;
  }
  return TC_ACT_SHOT;

miss:
  count_stat(dp, FL_STAT_UPCALLS);
  /* A tag the frame had already moves into its bytes (as a TAP read puts it). */
  if (bpf_skb_vlan_push(skb, bpf_htons(FL_UPCALL_TPID), (__u16)(tag & FL_MAX_PORT_TAG))) {
    count_stat(dp, FL_STAT_REDIRECT_ERR);
    return TC_ACT_SHOT;
  }
  return (int)bpf_redirect(upcall, 0);
}

char LICENSE[] SEC("license") = "GPL";

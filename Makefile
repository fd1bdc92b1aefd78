# SPDX-License-Identifier: GPL-2.0
# kfit: small eBPF/CO-RE tracers. `make help` lists the targets.

TOOLS := tracecheck softirqlat funcdur pmcstat callgraph kd bootsum
PREFIX ?= /usr/local
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool

# Debian packages: the build's (make, make demo), the tests' (make check)
# and the benchmarks' (make bench); make deps installs all three
BUILD_DEPS := make gcc clang llvm libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev
# --serve's HTTP server
BUILD_DEPS += libmicrohttpd-dev
TEST_DEPS := libcmocka-dev pkg-config jq iproute2 procps cpio busybox-static \
	qemu-system-x86 linux-perf strace ltrace
# the static tools of the VM: libdw.a's compressions
TEST_DEPS += liblzma-dev libbz2-dev
# a real program with DWARF (test_utargets: DW_AT_noreturn)
TEST_DEPS += python3.11-dbg
# libc's DWARF: malloc's parameter by name (ltrace: the oracle of its values)
TEST_DEPS += libc6-dbg
# The SVG and trace checks: xmllint, headless Chromium
TEST_DEPS += libxml2-utils chromium
# callgraph's oracle (uftrace); bootsum's comparison (systemd-bootchart)
TEST_DEPS += uftrace systemd-bootchart
# sampled user stacks: gdb's backtrace (the oracle), Debian's programs unwound
TEST_DEPS += gdb sqlite3 openssl
# make fuzz (in make check): clang's libFuzzer and sanitizer runtimes
TEST_DEPS += libclang-rt-14-dev
# the manual pages (make man; tests/live/test_docs.sh): pandoc, man-db
TEST_DEPS += pandoc man-db
# kd's peak RSS (tests/live/test_kd_memory.sh): GNU time
TEST_DEPS += time
# --serve's oracle: a real Prometheus server, and promtool (tests/live/test_serve.sh)
TEST_DEPS += prometheus curl
# the pprof profiles' reader (tests/live/test_pprof.sh): go tool pprof
TEST_DEPS += golang-go
# The comparisons: Debian's libbpf-tools, perf, bpftrace, uftrace, trace-cmd
# (tools/bench/record.sh), systemd-bootchart (tools/bench/bootsum.sh); peak
# RSS (time); the VM benchmarks (qemu, an initramfs of busybox)
BENCH_DEPS := libbpf-tools linux-perf bpftrace uftrace trace-cmd systemd-bootchart \
	time jq procps qemu-system-x86 cpio busybox-static
# the cost of --serve (tools/bench/serve.sh): the real Prometheus scraping
BENCH_DEPS += prometheus curl
DEPS := $(BUILD_DEPS) $(TEST_DEPS) $(BENCH_DEPS)

# STATIC=1: statically linked tools, for machines without libbpf (and the VM).
# SANITIZE=1: tools, helpers and unit tests built with ASan and UBSan, any
# finding fatal, into build/san (the sanitizers cannot link statically).
ifeq ($(STATIC)$(SANITIZE),11)
$(error STATIC=1 and SANITIZE=1 exclude each other)
endif
ifeq ($(STATIC),1)
OUT := build/static
STATIC_LDFLAGS := -static
else ifeq ($(SANITIZE),1)
OUT := build/san
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
# A finding exits 99, a status no test expects (bad input exits 1 or 2)
export ASAN_OPTIONS ?= exitcode=99
export UBSAN_OPTIONS ?= exitcode=99:print_stacktrace=1
else
OUT := build
endif

# The core's wings (src/lib/WING/), each on the ones it may include:
# a file of a wing is compiled with only those on its include path, so
# that an include past them fails in the build (test_layers says the same)
WINGS := base symbols tree boot targets perf trace
USES_base :=
USES_symbols := base
USES_tree := base
USES_boot := base
USES_targets := base symbols
USES_perf := base targets
USES_trace := base symbols targets
LIB_INC := $(WINGS:%=-Isrc/lib/%)

CFLAGS ?= -O2 -g
BASE_CFLAGS := $(CFLAGS) $(SAN_FLAGS) -std=gnu11 -Wall -Wextra -Werror \
	-D_GNU_SOURCE -Iinclude -Ibuild/gen -MMD -MP
KFIT_CFLAGS := $(BASE_CFLAGS) $(LIB_INC) -Isrc/live -Ibuild/skel
CORE_LDLIBS := -ldw -lelf -lz
ifeq ($(STATIC),1)
CORE_LDLIBS += -llzma -lbz2
endif
LDLIBS := -lbpf $(CORE_LDLIBS)
# --serve: libmicrohttpd, which Debian ships no static GnuTLS for: the
# static tools have no HTTP server (and say so); the others load it with
# dlopen for --serve alone (src/live/serve.c)
ifeq ($(STATIC),1)
KFIT_CFLAGS += -DKFIT_NO_HTTP
endif
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-Ivmlinux -Iinclude -Ibpf

# The library in two: src/lib/ (the core, in wings) never includes
# <bpf/...> and links without libbpf; src/live/ talks to the kernel through
# libbpf. Every .c in either goes into its archive. The tools are src/cmd/.
CORE_SRCS := $(wildcard src/lib/*/*.c)
CORE_OBJS := $(CORE_SRCS:src/lib/%.c=$(OUT)/obj/lib/%.o)
CORE_LIB := $(OUT)/libkfit-core.a
LIVE_SRCS := $(wildcard src/live/*.c)
LIVE_OBJS := $(LIVE_SRCS:src/live/%.c=$(OUT)/obj/live/%.o)
LIVE_LIB := $(OUT)/libkfit-live.a
BPF_SRCS := $(wildcard bpf/*.bpf.c)
SKELS := $(BPF_SRCS:bpf/%.bpf.c=build/skel/%.skel.h)
BINS := $(TOOLS:%=$(OUT)/bin/%)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(OUT)/tests/%)
# test_NAME of a core module (src/lib/WING/NAME.c, or one in parts,
# NAME_PART.c: test_kft of kft_codec.c, kft_read.c...) links the core alone
CORE_NAMES := $(notdir $(CORE_SRCS:.c=))
CORE_NAMES += $(foreach n,$(CORE_NAMES),$(firstword $(subst _, ,$(n))))
CORE_TESTS := $(filter $(addprefix $(OUT)/tests/test_,$(CORE_NAMES)),$(UNIT_BINS))
LIVE_TESTS := $(filter-out $(CORE_TESTS),$(UNIT_BINS))
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPERS := $(HELPER_SRCS:tests/helpers/%.c=$(OUT)/tests/%)

.PHONY: all man deps deps-build deps-test deps-bench vmlinux install uninstall clean check unit unit-asan live vm \
	bench demo help static fuzz fuzz-short fuzz-build
.DELETE_ON_ERROR:
.SECONDARY:

all: $(BINS) $(HELPERS)

help:
	@echo "make            build the tools into build/bin"
	@echo "make STATIC=1   statically linked tools into build/static/bin"
	@echo "make SANITIZE=1 tools and tests with ASan and UBSan into build/san"
	@echo "make deps       install the Debian packages of the build, tests and benchmarks"
	@echo "                (apt-get; make demo, check, bench install the ones they need)"
	@echo "make check      unit, unit-asan, live (this kernel), VM (Debian 6.1; tests/vm on 6.12)"
	@echo "make unit|unit-asan|live|vm  one suite (unit-asan: under ASan and UBSan; vm: on 6.1 and 6.12)"
	@echo "make vm-6.1|vm-6.12|vmonly-6.1|vmonly-6.12  the VM suite on one kernel"
	@echo "make check SANITIZE=1  the same, the live suite with sanitized tools"
	@echo "make fuzz       build the libFuzzer harnesses (tests/fuzz) into build/fuzz, run each"
	@echo "                FUZZ_SECONDS (60) over its corpus; FUZZ=pmu,kft picks some"
	@echo "make fuzz-short the same for 10 s each (what make check runs)"
	@echo "make bench      overhead against Debian's libbpf-tools"
	@echo "make demo       tracecheck, then softirqlat for 5 s"
	@echo "make install PREFIX=/usr/local"
	@echo "make vmlinux    regenerate vmlinux/vmlinux.h from this kernel's BTF"

# Installs the missing ones of PKGS (apt-get)
deps: PKGS = $(DEPS)
deps-build: PKGS = $(BUILD_DEPS)
deps-test: PKGS = $(BUILD_DEPS) $(TEST_DEPS)
deps-bench: PKGS = $(BUILD_DEPS) $(BENCH_DEPS)

deps deps-build deps-test deps-bench:
	@missing=""; for p in $(sort $(PKGS)); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | \
			grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/vmlinux.h.new
	mv vmlinux/vmlinux.h.new vmlinux/vmlinux.h

build/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.bpf.h) $(wildcard include/kfit/*.h) vmlinux/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(LLVM_STRIP) -g $@

# bootsum takes indexes with atomic fetch-and-add (BPF ISA v3, kernel 5.12+)
build/bpf/bootrec.bpf.o: BPF_CFLAGS += -mcpu=v3
# so does pmcstat --per-task, for its task slots
build/bpf/pmcstat.bpf.o: BPF_CFLAGS += -mcpu=v3

build/skel/%.skel.h: build/bpf/%.bpf.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# The core needs no skeleton (nor clang, nor bpftool): a wing's file sees
# include/, build/gen and the wings it may use, nothing else
define wing_rule
$$(OUT)/obj/lib/$(1)/%.o: src/lib/$(1)/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(BASE_CFLAGS) $(foreach w,$(1) $(USES_$(1)),-Isrc/lib/$(w)) -c $$< -o $$@
endef
$(foreach w,$(WINGS),$(eval $(call wing_rule,$(w))))

$(OUT)/obj/live/%.o: src/live/%.c | $(SKELS)
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) -c $< -o $@

# A command is src/cmd/TOOL.c, or every .c of src/cmd/TOOL/ (a big one,
# its parts over a private state.h)
tool_objs = $(if $(wildcard src/cmd/$(1)/*.c),$(patsubst src/cmd/%.c,$(OUT)/obj/cmd/%.o,$(wildcard src/cmd/$(1)/*.c)),$(OUT)/obj/$(1).o)

$(OUT)/obj/%.o: src/cmd/%.c | $(SKELS)
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) -c $< -o $@

$(OUT)/obj/cmd/%.o: src/cmd/%.c | $(SKELS)
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) -c $< -o $@

# The x86_64 system call table, generated from the system's headers
SYSCALL_HDR ?= /usr/include/x86_64-linux-gnu/asm/unistd_64.h

build/gen/syscall_table.h: $(SYSCALL_HDR)
	@mkdir -p $(@D)
	awk '$$1 == "#define" && $$2 ~ /^__NR_/ && $$3 ~ /^[0-9]+$$/ \
		{ printf "\t{ \"%s\", %s },\n", substr($$2, 6), $$3 }' $< > $@

$(OUT)/obj/lib/targets/syscalls.o: build/gen/syscall_table.h

$(CORE_LIB): $(CORE_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIVE_LIB): $(LIVE_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# kd reads trace files on any machine: the core alone, no libbpf, no skeleton
$(OUT)/obj/cmd/kd/%.o: src/cmd/kd/%.c
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) -c $< -o $@

.SECONDEXPANSION:

$(OUT)/bin/kd: $$(call tool_objs,kd) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) $(STATIC_LDFLAGS) $(LDFLAGS) $^ $(CORE_LDLIBS) -o $@

# live before core: the live archive uses the core
$(OUT)/bin/%: $$(call tool_objs,$$*) $(LIVE_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) $(STATIC_LDFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# kftgen writes kd's test files with the core library's writer
$(OUT)/tests/kftgen: tests/helpers/kftgen.c $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) -O1 $(STATIC_LDFLAGS) $< $(CORE_LIB) $(CORE_LDLIBS) -lpthread -o $@

# Test helpers (load generators, traced programs) are built like the tools
$(OUT)/tests/%: tests/helpers/%.c
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) -O1 $(STATIC_LDFLAGS) $< -o $@ -lpthread

# Breakpoints are set on its addresses before it runs: no PIE, fixed addresses
$(OUT)/tests/bpwrite: KFIT_CFLAGS += -fno-pie -no-pie

# Sampled: its user stacks are walked by frame pointers
$(OUT)/tests/cghot: KFIT_CFLAGS += -fno-omit-frame-pointer

# deepstack is built as Debian builds, without frame pointers, through a
# shared library of the same build: callgraph must unwind it from
# .eh_frame. Not sanitized, not static (a workload with a library)
HELPER_WFLAGS := $(CFLAGS) -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -fomit-frame-pointer

$(OUT)/tests/libdeeplib.so: tests/helpers/deeplib/deeplib.c
	@mkdir -p $(@D)
	$(CC) $(HELPER_WFLAGS) -fPIC -shared $< -o $@

ifeq ($(STATIC),1)
# the VM's: static, the library's code linked in (no shared library there)
$(OUT)/tests/deepstack: tests/helpers/deepstack.c tests/helpers/deeplib/deeplib.c
	@mkdir -p $(@D)
	$(CC) $(HELPER_WFLAGS) -static $^ -o $@
else
$(OUT)/tests/deepstack: tests/helpers/deepstack.c $(OUT)/tests/libdeeplib.so
	@mkdir -p $(@D)
	$(CC) $(HELPER_WFLAGS) $< -o $@ -L$(@D) -ldeeplib -Wl,-rpath,'$$ORIGIN'
endif

# pngstat decodes the screenshots of the SVG render test (zlib)
$(OUT)/tests/pngstat: tests/helpers/pngstat.c
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) -O1 $(STATIC_LDFLAGS) $< -o $@ -lz

# kftdump reads trace files with the core library (the recording tests)
$(OUT)/tests/kftdump: tests/helpers/kftdump.c $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) -O1 $(STATIC_LDFLAGS) $< $(CORE_LIB) $(CORE_LDLIBS) -lpthread -o $@

# flamesample draws with the core library
$(OUT)/tests/flamesample: tests/helpers/flamesample.c $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) -O1 $(STATIC_LDFLAGS) $< $(CORE_LIB) $(CORE_LDLIBS) -o $@

# cgshape with -pg for uftrace, the callgraph tests' oracle: not static
# (uftrace preloads its libmcount), not sanitized (a workload, as above)
ifneq ($(STATIC),1)
all: $(OUT)/tests/cgshape-pg $(OUT)/tests/argcalls-pg
endif

$(OUT)/tests/cgshape-pg: tests/helpers/cgshape.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -O1 -pg $< -o $@ -lpthread

# argcalls with -pg and DWARF: uftrace reads its arguments, funcdur too
$(OUT)/tests/argcalls-pg: tests/helpers/argcalls.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -O1 -g -pg $< -o $@

# KFIT_TOP: where the unit tests find the sources test_layers checks, the
# fixtures and the helpers (testlib builds tests/helpers/symtarget.c)
TEST_CFLAGS = $(KFIT_CFLAGS) -DKFIT_TOP='"$(CURDIR)"'

$(OUT)/tests/testlib.o: tests/unit/testlib.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -c $< -o $@

# A core test may use libbpf itself, as an oracle (test_opts counts CPUs with it)
ORACLE_LIBS = $(if $(shell grep -l '<bpf/' $<),-lbpf)

$(CORE_TESTS): $(OUT)/tests/test_%: tests/unit/test_%.c $(OUT)/tests/testlib.o $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< $(OUT)/tests/testlib.o $(CORE_LIB) $(CORE_LDLIBS) \
		$(ORACLE_LIBS) -lcmocka -o $@

$(LIVE_TESTS): $(OUT)/tests/test_%: tests/unit/test_%.c $(OUT)/tests/testlib.o $(LIVE_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $< $(OUT)/tests/testlib.o $(LIVE_LIB) $(CORE_LIB) $(LDLIBS) \
		-lcmocka -o $@

static:
	$(MAKE) STATIC=1 SANITIZE=

# The suite's name on its summary line
UNIT_SUITE ?= unit

unit: $(UNIT_BINS) $(OUT)/tests/btf_sample.bpf.o
	tests/unit/run.sh -n $(UNIT_SUITE) $(UNIT_BINS)

unit-asan:
	$(MAKE) SANITIZE=1 UNIT_SUITE=unit-asan unit

$(OUT)/tests/btf_sample.bpf.o: tests/unit/btf_sample.bpf.c tests/unit/btf_sample.h
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -target bpf -c $< -o $@

# With SANITIZE=1 the tools are sanitized, not the workloads they measure:
# the tests count the helpers' page faults, forks and system calls exactly,
# and ASan adds shadow pages, LSan a fork and getppid calls at exit
# static: test_record_vm.sh records in the VM with the static tools
live: all static
ifeq ($(SANITIZE),1)
	$(MAKE) SANITIZE= $(HELPER_SRCS:tests/helpers/%.c=build/tests/%) build/tests/cgshape-pg build/tests/argcalls-pg
	KFIT_HELPERS=$(CURDIR)/build/tests tests/live/run.sh $(OUT)
else
	tests/live/run.sh $(OUT)
endif

# The VM suite on each Debian 12 kernel in turn (tools/vm/README.md): vm-6.1
# and vm-6.12 run all of it, vmonly-6.1 and vmonly-6.12 tests/vm/test_*.sh
# without the live suite (what make check runs on 6.12); each prints its own
# "NAME: N passed, ..." line.
VM_KERNELS := 6.1 6.12
.PHONY: $(VM_KERNELS:%=vm-%) $(VM_KERNELS:%=vmonly-%)

vm: static
	@rc=0; for k in $(VM_KERNELS); do tools/vm/kfit-vm test --kernel $$k || rc=1; done; exit $$rc

$(VM_KERNELS:%=vm-%): static
	tools/vm/kfit-vm test --kernel $(@:vm-%=%)

$(VM_KERNELS:%=vmonly-%): static
	tools/vm/kfit-vm test --no-live --kernel $(@:vmonly-%=%)

check: deps-test
	$(MAKE) all
	tests/check.sh

# libFuzzer harnesses of the parsers of outside input (tests/fuzz): each
# links the core, compiled again with clang, its sanitizers and the
# fuzzer's coverage, into build/fuzz (the core is plain C: no skeleton)
FUZZ_SECONDS ?= 60
comma := ,
FUZZ_CFLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
	-Iinclude $(LIB_INC) -Ibuild/gen -Itests/fuzz -MMD -MP
FUZZ_LDFLAGS := -fsanitize=fuzzer,address,undefined
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_ALL := $(FUZZ_SRCS:tests/fuzz/%.c=build/fuzz/%)
FUZZ_BINS := $(if $(FUZZ),$(foreach n,$(subst $(comma), ,$(FUZZ)),build/fuzz/fuzz_$(n)),$(FUZZ_ALL))
FUZZ_CORE := $(CORE_SRCS:src/lib/%.c=build/fuzz/obj/lib/%.o)

build/fuzz/obj/lib/%.o: src/lib/%.c
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -c $< -o $@

build/fuzz/obj/lib/targets/syscalls.o: build/gen/syscall_table.h

build/fuzz/obj/%.o: tests/fuzz/%.c
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -c $< -o $@

build/fuzz/libkfit-core.a: $(FUZZ_CORE)
	@rm -f $@
	$(AR) rcs $@ $^

FUZZ_LIBS := build/fuzz/obj/fuzzlib.o build/fuzz/obj/kftfix.o build/fuzz/libkfit-core.a

build/fuzz/fuzz_%: build/fuzz/obj/fuzz_%.o $(FUZZ_LIBS)
	$(CLANG) $(FUZZ_LDFLAGS) $^ $(CORE_LDLIBS) -lpthread -o $@

# fuzz_kft's seeds: kd's test files (build/tests/kftgen), and the same
# with their chunks stored
build/fuzz/kftstore: build/fuzz/obj/kftstore.o $(FUZZ_LIBS)
	$(CLANG) -fsanitize=address,undefined $^ $(CORE_LDLIBS) -lpthread -o $@

# fuzz_target's user functions come from this fixture, not the system's files
build/fuzz/symtarget: tests/helpers/symtarget.c
	@mkdir -p $(@D)
	$(CLANG) -O1 $< -o $@

fuzz-build: $(FUZZ_ALL) build/fuzz/symtarget build/fuzz/kftstore build/tests/kftgen

fuzz: fuzz-build
	CLANG=$(CLANG) tests/fuzz/mkcorpus.sh build/fuzz/corpus
	tests/fuzz/run.sh -n $(FUZZ_SUITE) -t $(FUZZ_SECONDS) $(FUZZ_BINS)

FUZZ_SUITE ?= fuzz

fuzz-short:
	$(MAKE) FUZZ_SECONDS=10 FUZZ_SUITE=fuzz-short fuzz

# The benchmarks' own programs, not tools: the recording benchmark's floors
# (a BPF object and its loader) and tracefs recorder (tools/bench/record.sh),
# kd's floor, pmcstat --per-task's floors
BENCH_BINS := build/bench/floor build/bench/tracefs_rec build/bench/kdfloor \
	build/bench/pmcfloor build/bench/uwkern

# The floors' BPF objects, skeletons and loaders: floor (record.sh,
# softirqlat.sh), pmcfloor (pmcstat.sh: sched_switch, with pmcstat's maps)
BENCH_FLOORS := build/bench/floor build/bench/pmcfloor

build/bench/%.bpf.o: tools/bench/%.bpf.c $(wildcard bpf/*.bpf.h) $(wildcard include/kfit/*.h) vmlinux/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(LLVM_STRIP) -g $@

build/bench/%.skel.h: build/bench/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(BENCH_FLOORS): build/bench/%: tools/bench/%.c build/bench/%.skel.h
	$(CC) $(KFIT_CFLAGS) -Ibuild/bench $< -o $@ -lbpf

# The in-kernel unwinder (tools/bench/unwind.sh), callgraph's tables in maps
build/bench/uwkern: tools/bench/uwkern.c build/bench/uwkern.skel.h $(CORE_LIB)
	$(CC) $(KFIT_CFLAGS) -Ibuild/bench $< $(CORE_LIB) -o $@ -lbpf $(CORE_LDLIBS)

# kd's floor (tools/bench/kd.sh): every chunk inflated on all CPUs, no decoding
build/bench/kdfloor: tools/bench/kdfloor.c $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) $< $(CORE_LIB) $(CORE_LDLIBS) -lpthread -o $@

build/bench/tracefs_rec: tools/bench/tracefs_rec.c
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) $< -o $@ -lpthread

bench: deps-bench
	$(MAKE) all $(BENCH_BINS)
	tools/bench/bench.sh

demo: deps-build
	$(MAKE) all
	build/bin/tracecheck
	build/bin/softirqlat -d 5s

# A manual page per tool, section 8 as bcc's: docs/TOOL.md through pandoc
# (uftrace builds its own the same way), when pandoc is installed
MANS := $(TOOLS:%=build/man/kfit-%.8)

build/man/kfit-%.8: docs/%.md
	@mkdir -p $(@D)
	pandoc -s -t man $< -o $@

man:
	@command -v pandoc >/dev/null || { echo "make man needs pandoc (apt-get install pandoc)"; exit 1; }
	$(MAKE) $(MANS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	@if command -v pandoc >/dev/null; then \
		$(MAKE) man && install -d $(DESTDIR)$(PREFIX)/share/man/man8 && \
		install -m 0644 $(MANS) $(DESTDIR)$(PREFIX)/share/man/man8/; \
	else echo "no pandoc: manual pages not installed (make man needs it)"; fi

uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(PREFIX)/bin/%)
	rm -f $(TOOLS:%=$(DESTDIR)$(PREFIX)/share/man/man8/kfit-%.8)

clean:
	rm -rf build

# A dependency file of an earlier build may name a source that has moved
# since (src/TOOL.c is src/cmd/TOOL.c now): a missing source is no reason
# to stop; the object is rebuilt from where its source is, and its new
# dependency file forgets the old name
src/%.c: ;

-include $(shell find build -name '*.d' 2>/dev/null)

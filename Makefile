# SPDX-License-Identifier: GPL-2.0
# kfit: small eBPF/CO-RE tracers. `make help` lists the targets.

TOOLS := tracecheck softirqlat funcdur pmcstat
PREFIX ?= /usr/local
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool

# Debian packages the build, the tests and the benchmarks need
DEPS := make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev \
	libcmocka-dev pkg-config jq iproute2 procps cpio busybox-static \
	qemu-system-x86 libbpf-tools linux-perf

# STATIC=1: statically linked tools, for machines without libbpf (and the VM)
ifeq ($(STATIC),1)
OUT := build/static
STATIC_LDFLAGS := -static
else
OUT := build
endif

CFLAGS ?= -O2 -g
KFIT_CFLAGS := $(CFLAGS) -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
	-Iinclude -Isrc/lib -Ibuild/skel -Ibuild/gen -MMD -MP
LDLIBS := -lbpf -lelf -lz
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-Ivmlinux -Iinclude -Ibpf

LIB_SRCS := $(wildcard src/lib/*.c)
LIB_OBJS := $(LIB_SRCS:src/lib/%.c=$(OUT)/obj/lib/%.o)
LIB := $(OUT)/libkfit.a
BPF_SRCS := $(wildcard bpf/*.bpf.c)
SKELS := $(BPF_SRCS:bpf/%.bpf.c=build/skel/%.skel.h)
BINS := $(TOOLS:%=$(OUT)/bin/%)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=build/tests/%)
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPERS := $(HELPER_SRCS:tests/helpers/%.c=$(OUT)/tests/%)

.PHONY: all deps vmlinux install uninstall clean check unit live vm bench \
	demo help static
.DELETE_ON_ERROR:
.SECONDARY:

all: $(BINS) $(HELPERS)

help:
	@echo "make            build the tools into build/bin"
	@echo "make STATIC=1   statically linked tools into build/static/bin"
	@echo "make deps       install the Debian packages needed (apt-get)"
	@echo "make check      unit, live (this kernel), VM (Debian 6.1; tests/vm on 6.12)"
	@echo "make unit|live|vm  one suite (vm: on Debian's 6.1 and 6.12 kernels)"
	@echo "make vm-6.1|vm-6.12|vmonly-6.1|vmonly-6.12  the VM suite on one kernel"
	@echo "make bench      overhead against Debian's libbpf-tools"
	@echo "make demo       tracecheck, then softirqlat for 5 s"
	@echo "make install PREFIX=/usr/local"
	@echo "make vmlinux    regenerate vmlinux/vmlinux.h from this kernel's BTF"

deps:
	@missing=""; for p in $(DEPS); do \
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

build/skel/%.skel.h: build/bpf/%.bpf.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

$(OUT)/obj/%.o: src/%.c | $(SKELS)
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) -c $< -o $@

# The x86_64 system call table, generated from the system's headers
SYSCALL_HDR ?= /usr/include/x86_64-linux-gnu/asm/unistd_64.h

build/gen/syscall_table.h: $(SYSCALL_HDR)
	@mkdir -p $(@D)
	awk '$$1 == "#define" && $$2 ~ /^__NR_/ && $$3 ~ /^[0-9]+$$/ \
		{ printf "\t{ \"%s\", %s },\n", substr($$2, 6), $$3 }' $< > $@

$(LIB_OBJS): build/gen/syscall_table.h

$(LIB): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(OUT)/bin/%: $(OUT)/obj/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(STATIC_LDFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# Test helpers (load generators, traced programs) are built like the tools
$(OUT)/tests/%: tests/helpers/%.c
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) -O1 $(STATIC_LDFLAGS) $< -o $@ -lpthread

build/tests/test_%: tests/unit/test_%.c build/libkfit.a
	@mkdir -p $(@D)
	$(CC) $(KFIT_CFLAGS) $< build/libkfit.a $(LDLIBS) -lcmocka -o $@

static:
	$(MAKE) STATIC=1

unit: $(UNIT_BINS) build/tests/btf_sample.bpf.o
	tests/unit/run.sh $(UNIT_BINS)

build/tests/btf_sample.bpf.o: tests/unit/btf_sample.bpf.c
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -target bpf -c $< -o $@

live: all
	tests/live/run.sh build

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

check: deps
	$(MAKE) all
	tests/check.sh

bench: deps all
	tools/bench/bench.sh

demo: deps all
	build/bin/tracecheck
	build/bin/softirqlat -d 5s

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/

uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(PREFIX)/bin/%)

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)

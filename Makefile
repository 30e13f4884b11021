# tierswap: build, boot and test a patched 6.12 kernel under QEMU.
# `make help` lists the targets.

TREE    ?= patched
FLAVOUR ?= debug
T       ?=
TAG      = $(TREE)-$(FLAVOUR)
TOP     := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD   := $(TOP)/build
# One builder per machine (2 cores): every checkout and clone shares this lock.
# Its directory may not exist yet on a fresh machine: create it first.
CACHE   := $(HOME)/.cache
LOCK     = mkdir -p $(CACHE) && flock $(CACHE)/tierswap-build.lock

# Debian packages the frame and the components need (package:command-or-file).
DEPS = linux-source-6.12:/usr/src/linux-source-6.12.tar.xz gcc:gcc make:make \
	bc:bc flex:flex bison:bison libelf-dev:/usr/include/libelf.h \
	libssl-dev:/usr/include/openssl/ssl.h cpio:cpio busybox-static:/bin/busybox \
	qemu-system-x86:qemu-system-x86_64 fio:fio nbd-client:nbd-client ccache:ccache \
	rsync:rsync kmod:kmod xz-utils:xz patch:patch util-linux:flock \
	python3:python3 python3-yaml:/usr/lib/python3/dist-packages/yaml/__init__.py git:git \
	gnuplot-nox:gnuplot \
	$(shell cat $(TOP)/qemu/deps.* 2>/dev/null)

# Only the LAVA targets install these (docs/lava.md); make test never does.
LAVA_DEPS = lava-common:/usr/lib/python3/dist-packages/lava_common/schemas/__init__.py
LAVA_RUN_DEPS = $(LAVA_DEPS) lava-dispatcher:/usr/bin/lava-run

COMPONENTS := $(shell cat $(TOP)/qemu/components)

.PHONY: help deps kernel modules userspace kselftests initramfs guest-image test test-full kselftest-ab run shell \
	bench kernel-git export-patches series-check lava-jobs lava-run clean

help:
	@echo "make test            host tests, then the quick guest suite (# suite: quick) on the patched debug kernel"
	@echo "make test-full       host tests, then every guest test, the kernel's selftests included"
	@echo "make test T=name     one guest test (qemu/tests/name.sh), whatever its suite"
	@echo "make kselftest-ab    the kernel's swap-related selftests on base and patched (debug): a side-by-side table"
	@echo "make run             boot (release kernel), set up each swap tier, run the memory-pressure demo"
	@echo "make shell           boot the same guest to an interactive shell"
	@echo "make bench           base vs patched (release kernels) and host benchmarks; B=\"name ...\" a subset,"
	@echo "                     BENCH_ROUNDS=N boots each kernel N times in turn (values: medians over rounds)"
	@echo "make kernel-git      a git working copy of the patched tree: build/kernel-git"
	@echo "make export-patches  export build/kernel-git's commits back into mm-patches/"
	@echo "make series-check    build the kernel at every patch of the series (FIRST=N: from patch N), checkpatch --strict each: a table"
	@echo "make lava-jobs       a LAVA job per boot of make test/test-full/bench in build/lava/, checked by LAVA's schema;"
	@echo "                     LAVA_SPLIT=K: each shared boot as K jobs (LAVA_TIMES=a times.tsv balances them)"
	@echo "make lava-run T=...  make test T=... run by LAVA's own dispatcher (lava-run), judged the same way"
	@echo "make deps            install missing Debian packages"
	@echo "knobs (every one: docs/architecture.md, \"Knobs\"); guest ones go in GUEST_ENV=\"NAME=VALUE ...\":"
	@$(TOP)/qemu/knobs.sh help

deps:
	@missing=; for d in $(DEPS); do p=$${d%%:*}; c=$${d#*:}; \
		case $$c in /*) [ -e $$c ] ;; *) command -v $$c >/dev/null ;; esac || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "deps: installing$$missing"; \
		if [ "$$(id -u)" != 0 ]; then echo "deps: missing$$missing: run as root: apt-get install$$missing" >&2; exit 1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
			{ echo "deps: apt-get install$$missing failed" >&2; exit 1; }; \
	fi

$(BUILD):
	@mkdir -p $(BUILD)

kernel: deps | $(BUILD)
	@$(LOCK) $(TOP)/qemu/build-kernel.sh $(TREE) $(FLAVOUR) >/dev/null

modules: kernel
	@$(LOCK) $(TOP)/qemu/build-modules.sh $(TREE) $(FLAVOUR)

userspace: deps | $(BUILD)
	@for c in $(COMPONENTS); do [ -f $(TOP)/$$c/Makefile ] || continue; \
		$(LOCK) $(MAKE) -s -C $(TOP)/$$c O=$(BUILD)/host/$$(basename $$c) || exit 1; done

# The kernel's own swap-related selftests, built from the same tree (docs/kselftests.md).
# KSELFTEST_PARTS: what to build (mm cgroup zram, or none); make test passes
# what its guest tests run (their "# kselftest:" headers).
KSELFTEST_PARTS ?= mm cgroup zram
kselftests: kernel
	@KSELFTEST_PARTS="$(KSELFTEST_PARTS)" $(LOCK) $(TOP)/qemu/build-kselftests.sh $(TREE) $(FLAVOUR) >/dev/null

initramfs: modules userspace kselftests
	@$(LOCK) $(TOP)/qemu/mkinitramfs.sh $(TAG) $(BUILD)/initramfs-$(TAG).cpio >/dev/null

guest-image: initramfs

# The quick suite is the gate of every change; the full suite runs every test
# (docs/architecture.md, "Two suites"). The wall time printed at the end counts
# from here, the builds included.
test test-full: START := $(shell date +%s)
test: SUITE = quick
test-full: SUITE = full
test test-full: deps
	@parts=$$($(TOP)/qemu/kselftest-parts.sh $(SUITE) $(T)) && \
		$(MAKE) -s guest-image TREE=$(TREE) FLAVOUR=$(FLAVOUR) KSELFTEST_PARTS="$$parts"
	@TREE=$(TREE) FLAVOUR=$(FLAVOUR) T="$(T)" SUITE=$(SUITE) RESUME=$(RESUME) TEST_START=$(START) $(TOP)/qemu/test.sh

# The kernel's own selftests (qemu/tests/kselftest-*) on base and patched, side by side.
kselftest-ab: deps
	@$(MAKE) -s guest-image TREE=base FLAVOUR=$(FLAVOUR)
	@$(MAKE) -s guest-image TREE=patched FLAVOUR=$(FLAVOUR)
	@FLAVOUR=$(FLAVOUR) $(TOP)/qemu/kselftest-ab.sh

# The demo times things: it boots the release kernel unless told otherwise.
RUN_FLAVOUR ?= release
run: deps
	@$(MAKE) -s guest-image TREE=$(TREE) FLAVOUR=$(RUN_FLAVOUR)
	@$(TOP)/qemu/boot.sh run $(TREE)-$(RUN_FLAVOUR)
	@if grep -q '^USAGE-BEGIN' $(BUILD)/logs/latest/results.log; then \
		echo "the story's tier usage: $$($(TOP)/qemu/run-plot.sh $(BUILD)/logs/latest)"; fi

shell: deps
	@$(MAKE) -s guest-image TREE=$(TREE) FLAVOUR=$(FLAVOUR)
	@$(TOP)/qemu/boot.sh shell $(TAG)

bench: deps
	@$(MAKE) -s guest-image TREE=base FLAVOUR=release
	@$(MAKE) -s guest-image TREE=patched FLAVOUR=release
	@$(TOP)/qemu/bench.sh

kernel-git: deps
	@$(TOP)/qemu/kernel-git.sh init

export-patches:
	@$(TOP)/qemu/kernel-git.sh export

series-check: deps | $(BUILD)
	@$(LOCK) $(TOP)/qemu/series-check.sh $(FLAVOUR) $(FIRST)

# LAVA (docs/lava.md): ARTIFACT_URL= where a lab fetches build/'s kernels and
# initramfs images (default: file:// this build directory).
lava-jobs: deps | $(BUILD)
	@$(MAKE) -s deps DEPS="$(LAVA_DEPS)"
	@TREE=$(TREE) FLAVOUR=$(FLAVOUR) $(TOP)/qemu/lava-check.sh $(BUILD)/lava

# make lava-run T="a b": make test T="a b" through LAVA's own dispatcher.
lava-run: deps | $(BUILD)
	@$(MAKE) -s deps DEPS="$(LAVA_RUN_DEPS)"
	@$(MAKE) -s guest-image TREE=$(TREE) FLAVOUR=$(FLAVOUR) KSELFTEST_PARTS="$$($(TOP)/qemu/kselftest-parts.sh quick $(T))"
	@T="$(T)" TREE=$(TREE) FLAVOUR=$(FLAVOUR) $(TOP)/qemu/lava-run.sh

clean:
	rm -rf $(BUILD)/obj $(BUILD)/mod $(BUILD)/host $(BUILD)/initramfs-* $(BUILD)/logs

# Turn one kernel selftest's output into our TAP lines (guest side; busybox
# awk). Called by ksft_run (lib/kselftest.sh) on the program's stdout.
# Variables:
#   fmt    ktap | khugepaged | uffd | zram: the program's output format
#   prog   the name our lines start with ("cow", "test_zswap", ...)
#   n      the number of our last TAP line so far
#   rc     the program's exit status (124/137: killed by timeout)
#   xfail  file of known failures: "KEY<TAB>reason" (KEY = our description)
#   state  file to write "N FAILED" to (our new count and our failures)
#
# Each subtest becomes one line "ok N - PROG: KEY" (KEY stable between pass,
# fail and skip, so base and patched runs line up), "ok N - PROG: KEY # SKIP
# reason" or "not ok N - PROG: KEY" with the selftest's message as a '#' line.
# A failure listed in xfail is "ok N - PROG: KEY # XFAIL known failure:
# reason" (KTAP's directive for a known failure, kselftest's form). One more line per program, "PROG: ran to completion", fails when
# the program crashed, timed out, bailed out, or its exit status or its own
# plan/totals disagree with the results it printed.

function strip(s) {
	gsub(/\033\[[0-9;]*m/, "", s)
	sub(/\r$/, "", s)
	sub(/.*\r/, "", s)	# progress lines redrawn with \r: keep the last
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}

function uniq(k,    c) {
	gsub(/#/, "no.", k)	# '#' would start a TAP directive
	c = ++seen[k]
	return c > 1 ? k " [" c "]" : k
}

function emit(verdict, key, detail,    line) {
	key = uniq(key)
	n++
	results++
	if (verdict == "pass") {
		print "ok " n " - " prog ": " key
		npass++
	} else if (verdict == "skip") {
		print "ok " n " - " prog ": " key " # SKIP " detail
		nskip++
	} else if (verdict == "xfail") {
		# the selftest's own expected failure (ksft_test_result_xfail)
		print "ok " n " - " prog ": " key " # XFAIL selftest: " detail
		npass++
	} else if ((prog ": " key) in known) {
		print "ok " n " - " prog ": " key " # XFAIL known failure: " known[prog ": " key]
		if (detail != "") print "# " detail
		nfail++
		nknown++
	} else {
		print "not ok " n " - " prog ": " key
		if (detail != "") print "# " detail
		nfail++
		failed++
	}
}

BEGIN {
	n += 0; failed = 0; results = 0; npass = nskip = nfail = nknown = 0
	ctx = ""; planned = -1; bail = ""; wholeskip = ""; pending = ""; totals = ""
	if (xfail != "") {
		while ((getline l < xfail) > 0) {
			if (l ~ /^#/ || l !~ /\t/) continue
			k = l; sub(/\t.*/, "", k); r = l; sub(/^[^\t]*\t+/, "", r)
			known[k] = r
		}
		close(xfail)
	}
}

# ---- kselftest.h KTAP (cow, cgroup tests). cow names its cases in a
# "# [RUN] ..." line before each result; the cgroup tests put the test's
# name in the result line itself.
fmt == "ktap" {
	line = strip($0)
	if (line ~ /^# \[RUN\] /) { ctx = substr(line, 9); ctxused = 0; next }
	if (line ~ /^1\.\.0 # SKIP/) { wholeskip = line; sub(/^1\.\.0 # SKIP */, "", wholeskip); next }
	if (line ~ /^1\.\.[0-9]+/) { planned = substr(line, 4) + 0; next }
	if (line ~ /^Bail out!/) { bail = line; next }
	if (line ~ /^# Totals: /) { totals = line; next }
	if (line ~ /^(not )?ok [0-9]+( |$)/) {
		# A child forked with unflushed stdio (stdout is a file here) prints
		# the parent's earlier lines again when it exits: same number.
		num = line; sub(/^(not )?ok /, "", num); sub(/[^0-9].*/, "", num)
		if (num in numseen) { dups++; next }
		numseen[num] = 1
		v = (line ~ /^not /) ? "fail" : "pass"
		msg = line; sub(/^(not )?ok [0-9]+ ?/, "", msg)
		dir = ""
		if (match(msg, /# (SKIP|XFAIL|error)/)) {
			dir = substr(msg, RSTART + 2); msg = substr(msg, 1, RSTART - 1)
			sub(/ +$/, "", msg)
			if (dir ~ /^SKIP/) v = "skip"
			else if (dir ~ /^XFAIL/) v = "xfail"
			else v = "fail"
			sub(/^(SKIP|XFAIL|error) */, "", dir)
		}
		if (ctx != "" && !ctxused) {
			key = ctx; ctxused = 1
			detail = (dir != "") ? dir : msg
		} else {
			# no case name before it: the message is the name
			# (cgroup tests; a skip's message is the test's name too)
			key = (msg != "") ? msg : dir
			detail = (v == "skip") ? "skipped" : dir
		}
		if (v == "fail" && detail == "") detail = msg
		if (v == "skip" && detail == "") detail = "skipped"
		emit(v, key, detail)
		next
	}
	next
}

# ---- khugepaged: "Run test: NAME (ctx:mem)", then checks "What... OK" (the
# result may follow dots or other lines: "Fail", "Fail: why", "Skip", "Timeout").
fmt == "khugepaged" {
	line = strip($0)
	if (line ~ /^Run test: /) { ctx = substr(line, 11); pending = ""; next }
	if (line ~ /^(Save|Restore) THP and khugepaged settings/) next
	i = index(line, "...")
	if (i > 0) {
		pending = substr(line, 1, i - 1)
		line = substr(line, i)
		sub(/^[. ]+/, "", line)
	}
	if (pending != "" && line ~ /^(OK|Fail.*|Skip|Timeout)$/) {
		key = (ctx != "" ? ctx ": " : "") pending
		pending = ""
		if (line == "OK") emit("pass", key, "")
		else if (line == "Skip") emit("skip", key, "skipped by khugepaged")
		else emit("fail", key, line)
	}
	next
}

# ---- uffd-unit-tests: "Testing NAME... done|skipped [reason: R]|failed [reason: R]",
# with anything the test prints on the way in between.
fmt == "uffd" {
	line = strip($0)
	if (line ~ /^Userfaults unit tests: /) { totals = line; next }
	while (line != "") {
		if (line ~ /^Testing /) {
			if (pending != "") emit("fail", pending, "no result printed")
			i = index(line, "... ")
			if (i == 0) { pending = substr(line, 9); sub(/\.\.\.$/, "", pending); line = ""; break }
			pending = substr(line, 9, i - 9)
			line = substr(line, i + 4)
			continue
		}
		if (pending == "") break
		if (match(line, /done$/)) { emit("pass", pending, ""); pending = ""; break }
		if (match(line, /skipped \[reason: .*\]$/)) {
			r = substr(line, RSTART + 17); sub(/\]$/, "", r)
			emit("skip", pending, r); pending = ""; break
		}
		if (match(line, /failed \[reason: .*\]$/)) {
			r = substr(line, RSTART + 16); sub(/\]$/, "", r)
			emit("fail", pending, r); pending = ""; break
		}
		break
	}
	next
}

# ---- zram scripts: "...: OK" steps, "FAIL ..." lines, "zram0N : [PASS]"
fmt == "zram" {
	line = strip($0)
	if (line ~ /^zram0[0-9] : \[(PASS|FAIL)\]$/) {
		t = line; sub(/ .*/, "", t)
		emit(line ~ /PASS/ ? "pass" : "fail", t ": verdict", line)
		script = t
		next
	}
	if (line ~ /^TCID=/ || line ~ /^-+$/) next
	if (line ~ /FAIL/) { emit("fail", line, line); next }
	if (line ~ /: OK$/) { k = line; sub(/: OK$/, "", k); emit("pass", k, ""); next }
	next
}

END {
	if (fmt == "uffd" && pending != "") emit("fail", pending, "no result printed (crashed or killed?)")
	why = ""
	if (rc == 124 || rc == 137 || rc == 143) why = why "killed by its time limit; "
	else if (rc > 128) why = why "killed by signal " (rc - 128) "; "
	# kselftest.h ends with "Bail out! N out of M tests failed" after failures
	if (bail != "" && !(nfail > 0 && bail ~ /tests failed/)) why = why bail "; "
	if (wholeskip != "") {
		n++
		print "ok " n " - " prog ": all cases # SKIP " wholeskip
		if (why != "" || (rc != 4 && rc != 0)) {
			n++; failed++
			print "not ok " n " - " prog ": ran to completion"
			print "# exit status " rc "; " why
		}
		print n, failed > state
		exit
	}
	if (fmt == "ktap") {
		# the cgroup tests print no plan; cow does, and then it must hold
		if (planned >= 0 && planned != results) why = why "planned " planned " results, printed " results "; "
		if (rc == 0 && nfail > 0) why = why "exit status 0 despite failures; "
		if (rc != 0 && rc != 1 && why == "") why = why "exit status " rc "; "
		if (rc == 1 && nfail == 0 && why == "") why = why "exit status 1 without a failed case; "
	} else if (fmt == "khugepaged") {
		# it exits with its count of failed checks
		if (rc < 128 && rc != nfail) why = why "exit status " rc ", " nfail " failed checks printed; "
	} else if (fmt == "uffd") {
		if (totals == "") why = why "no totals printed; "
		else {
			want = "pass=" npass ", skip=" nskip ", fail=" nfail
			if (index(totals, want) == 0) why = why "its totals (" totals ") differ from the lines (" want "); "
		}
		if ((rc == 0) != (nfail == 0) && rc < 128) why = why "exit status " rc " with " nfail " failures; "
	} else if (fmt == "zram") {
		if (rc != 0) why = why "exit status " rc "; "
	}
	if (results == 0 && why == "") why = "no results recognised in its output; "
	n++
	if (why == "") print "ok " n " - " prog ": ran to completion"
	else {
		sub(/; $/, "", why)
		print "not ok " n " - " prog ": ran to completion"
		print "# " why
		failed++
	}
	if (nknown > 0) print "# " prog ": " nknown " known failure(s) (XFAIL)"
	if (dups > 0) print "# " prog ": " dups " result line(s) repeated by forked children, ignored"
	print n, failed > state
}

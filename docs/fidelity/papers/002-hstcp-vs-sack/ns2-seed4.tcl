set ns [new Simulator]
ns-random 12345
$defaultRNG seed 12345
for {set r 1} {$r < 4} {incr r} { $defaultRNG next-substream }
set nul [open /dev/null w]
for {set i 0} {$i < 6} {incr i} { set n($i) [$ns node] }
$ns simplex-link $n(0) $n(1) 1000000000 0.05 DropTail
$ns queue-limit $n(0) $n(1) 201
set qm(0) [$ns monitor-queue $n(0) $n(1) $nul]
$ns simplex-link $n(1) $n(0) 1000000000 0.05 DropTail
$ns queue-limit $n(1) $n(0) 1000000000
$ns simplex-link $n(2) $n(0) 10000000000 0.003 DropTail
$ns queue-limit $n(2) $n(0) 1000000000
$ns simplex-link $n(0) $n(2) 10000000000 0.003 DropTail
$ns queue-limit $n(0) $n(2) 1000000000
$ns simplex-link $n(3) $n(1) 10000000000 0.003 DropTail
$ns queue-limit $n(3) $n(1) 1000000000
$ns simplex-link $n(1) $n(3) 10000000000 0.003 DropTail
$ns queue-limit $n(1) $n(3) 1000000000
$ns simplex-link $n(4) $n(0) 10000000000 0.003 DropTail
$ns queue-limit $n(4) $n(0) 1000000000
$ns simplex-link $n(0) $n(4) 10000000000 0.003 DropTail
$ns queue-limit $n(0) $n(4) 1000000000
$ns simplex-link $n(5) $n(1) 10000000000 0.003 DropTail
$ns queue-limit $n(5) $n(1) 1000000000
$ns simplex-link $n(1) $n(5) 10000000000 0.003 DropTail
$ns queue-limit $n(1) $n(5) 1000000000
set tcp(0) [new Agent/TCP/Sack1]
$tcp(0) set packetSize_ 1460
$tcp(0) set window_ 1000000
$tcp(0) set windowInit_ 2
$tcp(0) set timestamps_ false
$tcp(0) set numdupacks_ 3
$tcp(0) set minrto_ 0.2
$tcp(0) set rtxcur_init_ 3.0
$tcp(0) set maxrto_ 60.0
$tcp(0) set overhead_ 1.2e-05
$tcp(0) set windowOption_ 8
$tcp(0) set low_window_ 38
$tcp(0) set high_window_ 83000
$tcp(0) set high_p_ 0.0000001
$tcp(0) set high_decrease_ 0.1
$ns attach-agent $n(2) $tcp(0)
set sink(0) [new Agent/TCPSink/Sack1]
$ns attach-agent $n(3) $sink(0)
set fm(0) [$ns monitor-queue $n(1) $n(3) $nul]
$ns connect $tcp(0) $sink(0)
set ftp(0) [new Application/FTP]; $ftp(0) attach-agent $tcp(0)
$ns at 0.996509621563 "$ftp(0) start"
set tcp(1) [new Agent/TCP/Sack1]
$tcp(1) set packetSize_ 1460
$tcp(1) set window_ 1000000
$tcp(1) set windowInit_ 2
$tcp(1) set timestamps_ false
$tcp(1) set numdupacks_ 3
$tcp(1) set minrto_ 0.2
$tcp(1) set rtxcur_init_ 3.0
$tcp(1) set maxrto_ 60.0
$tcp(1) set overhead_ 1.2e-05
$ns attach-agent $n(4) $tcp(1)
set sink(1) [new Agent/TCPSink/Sack1]
$ns attach-agent $n(5) $sink(1)
set fm(1) [$ns monitor-queue $n(1) $n(5) $nul]
$ns connect $tcp(1) $sink(1)
set ftp(1) [new Application/FTP]; $ftp(1) attach-agent $tcp(1)
$ns at 4.632409525934 "$ftp(1) start"
foreach i {0} { set bsum($i) 0.0; set blast($i) 0 }
proc tick {} { global ns qm bsum blast
  foreach i {0} { set b [$qm($i) set bdepartures_]; set d [expr {$b - $blast($i)}]
    if {$d < 0} { set d [expr {$d + 4294967296.0}] }
    set bsum($i) [expr {$bsum($i) + $d}]; set blast($i) $b }
  $ns at [expr {[$ns now] + 0.1}] "tick" }
$ns at 0.0 "tick"
proc report {tag} { global ns tcp qm fm bsum; tick; set s "$tag [$ns now]"
  for {set i 0} {$i < 2} {incr i} { append s " F"  " [$tcp($i) set ack_]" " [$tcp($i) set nrexmitpack_]" " [$tcp($i) set nrexmit_]" " [expr {[info exists fm($i)] ? [$fm($i) set pdepartures_] : -1}]" }
  foreach i {0} { append s " Q $i [$qm($i) set pdrops_] $bsum($i) [[$qm($i) get-pkts-integrator] set sum_]" }
  puts $s; flush stdout }
$ns at 20.0 "report W"
$ns at 100.0 "report E; exit 0"
$ns run

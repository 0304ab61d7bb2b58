# (No pattern contains an unbalanced '[' or a ';': CMake lists would split or merge elements there.)
# cmake -DMODE=<ptx|sass|sass_scale_vec_4x> -DINPUT=<file> [-DTOOL=<cuobjdump> -DNVDISASM_DIR=<dir>]
#       [-DMXF4NVF4_SPELLING=<block16|scale_vec::4X>] -P check_compiled.cmake
#
# Checks the build of test/ptx/ptx_compile_kernels.cu: in PTX mode, that every wrapper variant emitted its
# exact instruction spelling; in SASS mode, that ptxas turned each into the expected sm_100a instruction,
# counting the ones whose number of instantiations is known.
if(NOT EXISTS "${INPUT}")
  message(FATAL_ERROR "input not found: '${INPUT}'")
endif()

set(present "")    # literal substrings (ptx) or regexes (sass) that must occur at least once
set(counted "")    # "regex=count" pairs: exact number of occurrences

if(MODE STREQUAL "ptx")
  file(READ "${INPUT}" text)
  if(NOT MXF4NVF4_SPELLING)
    set(MXF4NVF4_SPELLING "block16")
  endif()
  list(APPEND present
    ".target sm_100a"
    "mbarrier.init.shared::cta.b64"
    "fence.mbarrier_init.release.cluster"
    "mbarrier.arrive.release.cta.shared::cta.b64"
    "mbarrier.arrive.release.cta.shared::cluster.b64"
    "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64"
    "mbarrier.arrive.expect_tx.release.cta.shared::cluster.b64"
    "mbarrier.expect_tx.relaxed.cta.shared::cta.b64"
    "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64"
    "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64"
    "barrier.cluster.arrive.release.aligned"
    "barrier.cluster.arrive.relaxed.aligned"
    "barrier.cluster.wait.acquire.aligned"
    "mapa.shared::cluster.u32"
    "%cluster_ctarank" "%cluster_nctarank" "%cluster_ctaid.x" "%cluster_nctaid.x" "%clusterid.x"
    "%nclusterid.x" "%laneid" "%smid" "%dynamic_smem_size"
    "cp.async.bulk.commit_group"
    "cp.async.bulk.wait_group.read 1"
    "cp.async.bulk.wait_group.read 0"
    "cp.async.bulk.wait_group 0"
    "fence.proxy.async.shared::cta"
    "prefetch.tensormap"
    "tcgen05.wait::ld.sync.aligned"
    "tcgen05.fence::before_thread_sync"
    "tcgen05.fence::after_thread_sync"
    "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 "
    "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 "
    "ld.shared.b128"
    "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128"
    "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128"
    "elect.sync"
    "bar.sync"
    "bar.arrive"
    "shfl.sync.idx"
    "trap"
    "ex2.approx.ftz.f32"
    "rcp.approx.ftz.f32"
    "cvt.rn.f16x2.f32"
    "cvt.rn.bf16x2.f32"
    "ld.shared::cluster.v4.f32"
    "griddepcontrol.wait" "griddepcontrol.launch_dependents")
  if(WIDE_STORES)  # PTX ISA 8.8 (CUDA 12.9+): ptx/global.cuh's 256-bit form
    list(APPEND present "st.global.v8.b32" "st.global.L1::no_allocate.v8.b32")
  else()
    list(APPEND present "st.global.v4.b32" "st.global.L1::no_allocate.v4.b32")
  endif()
  foreach(rank 1 2 3 4 5)
    foreach(mods "" ".L2::cache_hint" ".cta_group::2" ".cta_group::2.L2::cache_hint" ".multicast::cluster"
                 ".multicast::cluster.L2::cache_hint" ".multicast::cluster.cta_group::2"
                 ".multicast::cluster.cta_group::2.L2::cache_hint")
      list(APPEND present
        "cp.async.bulk.tensor.${rank}d.shared::cluster.global.mbarrier::complete_tx::bytes${mods} ")
    endforeach()
    list(APPEND present "cp.async.bulk.tensor.${rank}d.global.shared::cta.bulk_group ")
  endforeach()
  foreach(g 1 2)
    list(APPEND present
      "tcgen05.alloc.cta_group::${g}.sync.aligned.shared::cta.b32"
      "tcgen05.dealloc.cta_group::${g}.sync.aligned.b32"
      "tcgen05.relinquish_alloc_permit.cta_group::${g}.sync.aligned"
      "tcgen05.commit.cta_group::${g}.mbarrier::arrive::one.shared::cluster.b64 "
      "tcgen05.commit.cta_group::${g}.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 ")
    foreach(c "" ".collector::a::fill" ".collector::a::use" ".collector::a::lastuse" ".collector::a::discard")
      list(APPEND present
        "tcgen05.mma.cta_group::${g}.kind::f16${c} "
        "tcgen05.mma.cta_group::${g}.kind::mxf4nvf4.block_scale.${MXF4NVF4_SPELLING}${c} ")
    endforeach()
    foreach(shape "128x256b" "4x256b" "128x128b" "64x128b.warpx2::02_13" "64x128b.warpx2::01_23"
                  "32x128b.warpx4")
      list(APPEND present "tcgen05.cp.cta_group::${g}.${shape} ")
    endforeach()
  endforeach()
  foreach(n 1 2 4 8 16 32 64 128)
    list(APPEND present "tcgen05.ld.sync.aligned.32x32b.x${n}.b32")
  endforeach()
  set(literal TRUE)
elseif(MODE STREQUAL "sass" OR MODE STREQUAL "sass_scale_vec_4x")
  set(ENV{PATH} "${NVDISASM_DIR}:$ENV{PATH}")
  execute_process(COMMAND "${TOOL}" -sass "${INPUT}" OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${TOOL} -sass failed (${rc}): ${err}")
  endif()
  # Brackets and semicolons would break CMake list handling of the matches: SASS operands "[UR4]" become
  # "<UR4>" for the patterns below.
  string(REPLACE "[" "<" text "${text}")
  string(REPLACE "]" ">" text "${text}")
  string(REPLACE ";" " " text "${text}")
  # tcgen05.mma: kind::f16 -> UTCHMMA, kind::mxf4nvf4 block16 / scale_vec::4X -> UTCOMMA.4X; 5 collector
  # variants x 2 CTA groups each. Collector usage: fill -> A_KEEP, use -> A_REUSE.A_KEEP, lastuse -> A_REUSE.
  list(APPEND counted "UTCOMMA=10" "UTCOMMA\\.4X=5" "UTCOMMA\\.2CTA\\.4X=5")
  if(MODE STREQUAL "sass")
    list(APPEND counted
      "UTCHMMA=10" "UTCHMMA\\.2CTA=5" "A_REUSE\\.A_KEEP=4" "A_KEEP=8" "A_REUSE=8"
      # tcgen05.commit -> UTCBAR
      "UTCBAR <=1" "UTCBAR\\.MULTICAST=1" "UTCBAR\\.2CTA <=1" "UTCBAR\\.2CTA\\.MULTICAST=1"
      # tcgen05.cp -> UTCCP: 6 shapes x 2 CTA groups
      "UTCCP=12" "UTCCP\\.T\\.S\\.4x32dp128bit=1" "UTCCP\\.T\\.S\\.2CTA\\.4x32dp128bit=1" "128dp128bit=2"
      "4dp256bit=2" "lw02_lw13=2" "lw01_lw23=2"
      # tcgen05.ld 32x32b .x1 .. .x128 -> LDTM, twice each
      "LDTM=16" "LDTM R=2" "LDTM\\.x2 =2" "LDTM\\.x4 =2" "LDTM\\.x8 =2" "LDTM\\.x16 =2" "LDTM\\.x32 =2"
      "LDTM\\.x64 =2" "LDTM\\.x128 =2"
      # cp.async.bulk.tensor loads -> UTMALDG: 5 ranks x {plain, hint} x {-, multicast} x {1, 2 CTA}
      "UTMALDG=40" "UTMALDG\\.[1-5]D <=10" "UTMALDG\\.[1-5]D\\.2CTA <=10" "UTMALDG\\.[1-5]D\\.MULTICAST <=10"
      "UTMALDG\\.[1-5]D\\.MULTICAST\\.2CTA <=10" "UTMALDG\\.1D=8" "UTMALDG\\.5D=8"
      "UTMALDG[^\n]*desc<UR=20"
      # TMA stores -> UTMASTG; CLC try_cancel -> UGETNEXTWORKID; barrier.cluster -> UCGABAR_*
      "UTMASTG=5" "UTMASTG\\.1D=1" "UTMASTG\\.5D=1"
      "UGETNEXTWORKID\\.SELFCAST=1" "UGETNEXTWORKID\\.BROADCAST=1"
      "UCGABAR_ARV=3" "UCGABAR_WAIT=3"
      # griddepcontrol.wait -> ACQBULK, griddepcontrol.launch_dependents -> PREEXIT (griddepcontrol_kernel)
      "ACQBULK=1" "PREEXIT=1")
    list(APPEND present
      "UTMACCTL\\.PF"                         # prefetch.tensormap
      "UTCATOMSWS\\.FIND_AND_SET\\.ALIGN"      # tcgen05.alloc.cta_group::1
      "UTCATOMSWS\\.2CTA\\.FIND_AND_SET\\.ALIGN" # tcgen05.alloc.cta_group::2
      "UTCATOMSWS\\.AND"                      # tcgen05.dealloc
      "UVIRTCOUNT\\.DEALLOC\\.SMPOOL"          # tcgen05.relinquish_alloc_permit
      "SYNCS\\.EXCH\\.64"                      # mbarrier.init
      "SYNCS\\.ARRIVE\\.TRANS64"               # mbarrier.arrive[.expect_tx]
      "SYNCS\\.PHASECHK\\.TRANS64\\.TRYWAIT"   # mbarrier.try_wait.parity
      "ELECT"                                 # elect.sync
      "LDS\\.128"                             # ld.shared.b128 of the CLC response
      "FENCE\\.VIEW\\.ASYNC\\.S"               # fence.proxy.async.shared::cta
      "BAR\\.SYNC" "BAR\\.ARV" "SHFL\\.IDX" "BPT\\.TRAP"
      "MUFU\\.EX2" "MUFU\\.RCP"                   # ex2.approx, rcp.approx (ptx/math.cuh)
      "F2FP\\.F16\\.F32\\.PACK_AB" "F2FP\\.BF16\\.F32\\.PACK_AB")  # cvt.rn.{f16,bf16}x2.f32 (ptx/global.cuh)
    if(WIDE_STORES)
      list(APPEND counted "STG\\.E\\.ENL2\\.256=1" "STG\\.E\\.NA\\.ENL2\\.256=1")  # st_global_256, both policies
    endif()
  endif()
  set(literal FALSE)
else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()

set(failures "")
foreach(p IN LISTS present)
  if(literal)
    string(FIND "${text}" "${p}" pos)
    if(pos EQUAL -1)
      list(APPEND failures "missing: ${p}")
    endif()
  else()
    if(NOT text MATCHES "${p}")
      list(APPEND failures "missing: ${p}")
    endif()
  endif()
endforeach()
foreach(entry IN LISTS counted)
  string(REGEX MATCH "^(.*)=([0-9]+)$" _ "${entry}")
  set(regex "${CMAKE_MATCH_1}")
  set(want "${CMAKE_MATCH_2}")
  string(REGEX MATCHALL "${regex}" hits "${text}")
  list(LENGTH hits got)
  if(NOT got EQUAL want)
    list(APPEND failures "count of '${regex}': want ${want}, got ${got}")
  endif()
endforeach()

list(LENGTH present n_present)
list(LENGTH counted n_counted)
if(failures)
  string(REPLACE ";" "\n  " msg "${failures}")
  message(FATAL_ERROR "${MODE} check of ${INPUT} failed:\n  ${msg}")
endif()
message(STATUS "${MODE}: ${n_present} forms present, ${n_counted} counts exact")

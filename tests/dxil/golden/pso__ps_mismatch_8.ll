target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
  %1 = call float @dx.op.loadInput.f32(i32 4, i32 3, i32 0, i8 0, i32 undef)
  %2 = call float @dx.op.loadInput.f32(i32 4, i32 3, i32 0, i8 1, i32 undef)
  %3 = call float @dx.op.loadInput.f32(i32 4, i32 3, i32 0, i8 2, i32 undef)
  %4 = call float @dx.op.loadInput.f32(i32 4, i32 3, i32 0, i8 3, i32 undef)
  %5 = call i32 @dx.op.loadInput.i32(i32 4, i32 2, i32 0, i8 0, i32 undef)
  %6 = call i32 @dx.op.loadInput.i32(i32 4, i32 2, i32 0, i8 1, i32 undef)
  %7 = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 0, i32 undef)
  %8 = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 1, i32 undef)
  %9 = call float @dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 2, i32 undef)
  %10 = sitofp i32 %5 to float
  %11 = sitofp i32 %6 to float
  %12 = fptoui float %1 to i32
  %13 = fptoui float %2 to i32
  %14 = fptoui float %3 to i32
  %15 = fptoui float %4 to i32
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %7)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %8)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float %9)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float 0.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 0, float %10)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 1, float %11)
  call void @dx.op.storeOutput.i32(i32 5, i32 2, i32 0, i8 0, i32 %12)
  call void @dx.op.storeOutput.i32(i32 5, i32 2, i32 0, i8 1, i32 %13)
  call void @dx.op.storeOutput.i32(i32 5, i32 2, i32 0, i8 2, i32 %14)
  call void @dx.op.storeOutput.i32(i32 5, i32 2, i32 0, i8 3, i32 %15)
  ret void
}

; Function Attrs: nounwind readnone
declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32) #0

; Function Attrs: nounwind readnone
declare i32 @dx.op.loadInput.i32(i32, i32, i32, i8, i32) #0

; Function Attrs: nounwind
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float) #1

; Function Attrs: nounwind
declare void @dx.op.storeOutput.i32(i32, i32, i32, i8, i32) #1

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.viewIdState = !{!4}
!dx.entryPoints = !{!5}

!0 = !{!"dxcoob 1.7.2308.7 (69e54e290)"}
!1 = !{i32 1, i32 0}
!2 = !{i32 1, i32 7}
!3 = !{!"ps", i32 6, i32 0}
!4 = !{[18 x i32] [i32 16, i32 12, i32 0, i32 0, i32 0, i32 0, i32 1, i32 2, i32 4, i32 0, i32 16, i32 32, i32 0, i32 0, i32 256, i32 512, i32 1024, i32 2048]}
!5 = !{void ()* @main, !"main", !6, null, null}
!6 = !{!7, !18, null}
!7 = !{!8, !10, !12, !15}
!8 = !{i32 0, !"SV_Position", i8 9, i8 3, !9, i8 4, i32 1, i8 4, i32 0, i8 0, null}
!9 = !{i32 0}
!10 = !{i32 1, !"ARG", i8 9, i8 0, !9, i8 2, i32 1, i8 3, i32 1, i8 0, !11}
!11 = !{i32 3, i32 7}
!12 = !{i32 2, !"ARG", i8 4, i8 0, !13, i8 1, i32 1, i8 2, i32 2, i8 0, !14}
!13 = !{i32 1}
!14 = !{i32 3, i32 3}
!15 = !{i32 3, !"ARG", i8 9, i8 0, !16, i8 2, i32 1, i8 4, i32 3, i8 0, !17}
!16 = !{i32 2}
!17 = !{i32 3, i32 15}
!18 = !{!19, !20, !21}
!19 = !{i32 0, !"SV_Target", i8 9, i8 16, !9, i8 0, i32 1, i8 4, i32 0, i8 0, !17}
!20 = !{i32 1, !"SV_Target", i8 9, i8 16, !13, i8 0, i32 1, i8 2, i32 1, i8 0, !14}
!21 = !{i32 2, !"SV_Target", i8 5, i8 16, !16, i8 0, i32 1, i8 4, i32 2, i8 0, !17}

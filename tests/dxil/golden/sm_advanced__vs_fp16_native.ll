target datalayout = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
  %1 = call i32 @dx.op.loadInput.i32(i32 4, i32 0, i32 0, i8 0, i32 undef)
  %2 = icmp eq i32 %1, 0
  %3 = icmp eq i32 %1, 1
  %4 = select i1 %3, float 3.000000e+00, float -1.000000e+00
  %5 = icmp ult i32 %1, 2
  %6 = select i1 %5, float -1.000000e+00, float 3.000000e+00
  %7 = select i1 %2, float -1.000000e+00, float %4
  %8 = fmul fast float %6, 5.000000e-01
  %9 = fmul fast float %7, 5.000000e-01
  %10 = fadd fast float %8, 5.000000e-01
  %11 = fadd fast float %9, 5.000000e-01
  %12 = fptrunc float %10 to half
  %13 = fptrunc float %11 to half
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %6)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %7)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float 0.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float 1.000000e+00)
  call void @dx.op.storeOutput.f16(i32 5, i32 1, i32 0, i8 0, half %12)
  call void @dx.op.storeOutput.f16(i32 5, i32 1, i32 0, i8 1, half %13)
  ret void
}

; Function Attrs: nounwind readnone
declare i32 @dx.op.loadInput.i32(i32, i32, i32, i8, i32) #0

; Function Attrs: nounwind
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float) #1

; Function Attrs: nounwind
declare void @dx.op.storeOutput.f16(i32, i32, i32, i8, half) #1

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.viewIdState = !{!4}
!dx.entryPoints = !{!5}

!0 = !{!"dxcoob 1.7.2308.7 (69e54e290)"}
!1 = !{i32 1, i32 2}
!2 = !{i32 1, i32 7}
!3 = !{!"vs", i32 6, i32 2}
!4 = !{[3 x i32] [i32 1, i32 6, i32 51]}
!5 = !{void ()* @main, !"main", !6, null, !16}
!6 = !{!7, !11, null}
!7 = !{!8}
!8 = !{i32 0, !"SV_VertexID", i8 5, i8 1, !9, i8 0, i32 1, i8 1, i32 0, i8 0, !10}
!9 = !{i32 0}
!10 = !{i32 3, i32 1}
!11 = !{!12, !14}
!12 = !{i32 0, !"SV_Position", i8 9, i8 3, !9, i8 4, i32 1, i8 4, i32 0, i8 0, !13}
!13 = !{i32 3, i32 15}
!14 = !{i32 1, !"V", i8 8, i8 0, !9, i8 2, i32 1, i8 2, i32 1, i8 0, !15}
!15 = !{i32 3, i32 3}
!16 = !{i32 0, i64 8388640}

target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.CBufRet.f32 = type { float, float, float, float }
%buf = type { float }

define void @main() {
  %1 = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 2, i32 0, i32 0, i1 false)
  %2 = call i32 @dx.op.loadInput.i32(i32 4, i32 1, i32 0, i8 0, i32 undef)
  %3 = call i32 @dx.op.loadInput.i32(i32 4, i32 0, i32 0, i8 0, i32 undef)
  %4 = call i32 @dx.op.viewID.i32(i32 138)
  %5 = call %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32 59, %dx.types.Handle %1, i32 0)
  %6 = extractvalue %dx.types.CBufRet.f32 %5, 0
  %7 = fcmp fast ogt float %6, 2.000000e+02
  %8 = and i32 %3, 1
  %9 = uitofp i32 %8 to float
  %10 = and i32 %3, 2
  %11 = uitofp i32 %10 to float
  %12 = fmul fast float %11, 5.000000e-01
  %13 = fadd fast float %12, -1.000000e+00
  %14 = uitofp i32 %2 to float
  %15 = fadd fast float %14, -1.000000e+00
  %16 = fadd fast float %15, %9
  %17 = zext i1 %7 to i32
  %18 = xor i32 %17, %4
  %19 = uitofp i32 %18 to float
  %20 = fadd fast float %13, %19
  %21 = shl i32 %4, 1
  %22 = add i32 %21, %2
  %23 = uitofp i32 %22 to float
  %24 = fmul fast float %23, 2.500000e-01
  %25 = fsub fast float -0.000000e+00, %20
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %16)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %25)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float %24)
  call void @dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float 1.000000e+00)
  call void @dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 0, float %6)
  call void @dx.op.storeOutput.i32(i32 5, i32 2, i32 0, i8 0, i32 %4)
  call void @dx.op.storeOutput.i32(i32 5, i32 3, i32 0, i8 0, i32 %2)
  ret void
}

; Function Attrs: nounwind readnone
declare i32 @dx.op.viewID.i32(i32) #0

; Function Attrs: nounwind readnone
declare i32 @dx.op.loadInput.i32(i32, i32, i32, i8, i32) #0

; Function Attrs: nounwind
declare void @dx.op.storeOutput.f32(i32, i32, i32, i8, float) #1

; Function Attrs: nounwind
declare void @dx.op.storeOutput.i32(i32, i32, i32, i8, i32) #1

; Function Attrs: nounwind readonly
declare %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32, %dx.types.Handle, i32) #2

; Function Attrs: nounwind readonly
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1) #2

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }
attributes #2 = { nounwind readonly }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.resources = !{!4}
!dx.viewIdState = !{!7}
!dx.entryPoints = !{!8}

!0 = !{!"dxcoob 1.8.2505.32 (b106a961d)"}
!1 = !{i32 1, i32 1}
!2 = !{i32 1, i32 9}
!3 = !{!"vs", i32 6, i32 1}
!4 = !{null, null, !5, null}
!5 = !{!6}
!6 = !{i32 0, %buf* undef, !"", i32 0, i32 0, i32 1, i32 4, null}
!7 = !{[8 x i32] [i32 5, i32 10, i32 262, i32 3, i32 0, i32 0, i32 0, i32 517]}
!8 = !{void ()* @main, !"main", !9, !4, !21}
!9 = !{!10, !15, null}
!10 = !{!11, !14}
!11 = !{i32 0, !"SV_VertexID", i8 5, i8 1, !12, i8 0, i32 1, i8 1, i32 0, i8 0, !13}
!12 = !{i32 0}
!13 = !{i32 3, i32 1}
!14 = !{i32 1, !"SV_InstanceID", i8 5, i8 2, !12, i8 0, i32 1, i8 1, i32 1, i8 0, !13}
!15 = !{!16, !18, !19, !20}
!16 = !{i32 0, !"SV_Position", i8 9, i8 3, !12, i8 4, i32 1, i8 4, i32 0, i8 0, !17}
!17 = !{i32 3, i32 15}
!18 = !{i32 1, !"COOKIE", i8 9, i8 0, !12, i8 2, i32 1, i8 1, i32 1, i8 0, !13}
!19 = !{i32 2, !"VID", i8 5, i8 0, !12, i8 1, i32 1, i8 1, i32 2, i8 0, !13}
!20 = !{i32 3, !"IID", i8 5, i8 0, !12, i8 1, i32 1, i8 1, i32 2, i8 1, !13}
!21 = !{i32 0, i64 2097152}

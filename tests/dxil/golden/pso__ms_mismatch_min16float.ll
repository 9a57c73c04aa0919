target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

define void @main() {
  %1 = call i32 @dx.op.flattenedThreadIdInGroup.i32(i32 96)
  call void @dx.op.setMeshOutputCounts(i32 168, i32 3, i32 1)
  %2 = and i32 %1, 1
  %3 = uitofp i32 %2 to float
  %4 = and i32 %1, 2
  %5 = uitofp i32 %4 to float
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 0, float %3, i32 %1)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 1, float %5, i32 %1)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 2, float 0.000000e+00, i32 %1)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 0, i32 0, i8 3, float 1.000000e+00, i32 %1)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 1, i32 0, i8 0, float 1.000000e+00, i32 %1)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 1, i32 0, i8 1, float 2.000000e+00, i32 %1)
  call void @dx.op.storeVertexOutput.f32(i32 171, i32 1, i32 0, i8 2, float 3.000000e+00, i32 %1)
  call void @dx.op.storeVertexOutput.i32(i32 171, i32 2, i32 0, i8 0, i32 6, i32 %1)
  call void @dx.op.storeVertexOutput.i32(i32 171, i32 2, i32 0, i8 1, i32 7, i32 %1)
  call void @dx.op.storeVertexOutput.i32(i32 171, i32 2, i32 0, i8 2, i32 8, i32 %1)
  call void @dx.op.storeVertexOutput.i32(i32 171, i32 2, i32 0, i8 3, i32 9, i32 %1)
  %6 = icmp eq i32 %1, 0
  br i1 %6, label %7, label %8

7:                                                ; preds = %0
  call void @dx.op.emitIndices(i32 169, i32 0, i32 0, i32 1, i32 2)
  call void @dx.op.storePrimitiveOutput.f16(i32 172, i32 0, i32 0, i8 0, half 0xH4400, i32 0)
  call void @dx.op.storePrimitiveOutput.f16(i32 172, i32 0, i32 0, i8 1, half 0xH4500, i32 0)
  br label %8

8:                                                ; preds = %7, %0
  ret void
}

; Function Attrs: nounwind
declare void @dx.op.emitIndices(i32, i32, i32, i32, i32) #0

; Function Attrs: nounwind readnone
declare i32 @dx.op.flattenedThreadIdInGroup.i32(i32) #1

; Function Attrs: nounwind
declare void @dx.op.storeVertexOutput.f32(i32, i32, i32, i8, float, i32) #0

; Function Attrs: nounwind
declare void @dx.op.storeVertexOutput.i32(i32, i32, i32, i8, i32, i32) #0

; Function Attrs: nounwind
declare void @dx.op.storePrimitiveOutput.f16(i32, i32, i32, i8, half, i32) #0

; Function Attrs: nounwind
declare void @dx.op.setMeshOutputCounts(i32, i32, i32) #0

attributes #0 = { nounwind }
attributes #1 = { nounwind readnone }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.viewIdState = !{!4}
!dx.entryPoints = !{!5}

!0 = !{!"dxcoob 1.7.2308.7 (69e54e290)"}
!1 = !{i32 1, i32 5}
!2 = !{i32 1, i32 7}
!3 = !{!"ms", i32 6, i32 5}
!4 = !{[3 x i32] [i32 0, i32 12, i32 2]}
!5 = !{void ()* @main, !"main", !6, null, !19}
!6 = !{null, !7, !15}
!7 = !{!8, !11, !13}
!8 = !{i32 0, !"SV_Position", i8 9, i8 3, !9, i8 4, i32 1, i8 4, i32 0, i8 0, !10}
!9 = !{i32 0}
!10 = !{i32 3, i32 15}
!11 = !{i32 1, !"ARG", i8 9, i8 0, !9, i8 2, i32 1, i8 3, i32 1, i8 0, !12}
!12 = !{i32 3, i32 7}
!13 = !{i32 2, !"ARG", i8 5, i8 0, !14, i8 1, i32 1, i8 4, i32 2, i8 0, !10}
!14 = !{i32 2}
!15 = !{!16}
!16 = !{i32 0, !"ARG", i8 8, i8 0, !17, i8 1, i32 1, i8 2, i32 0, i8 0, !18}
!17 = !{i32 1}
!18 = !{i32 3, i32 3}
!19 = !{i32 0, i64 32, i32 9, !20}
!20 = !{!21, i32 3, i32 1, i32 2, i32 0}
!21 = !{i32 3, i32 1, i32 1}
